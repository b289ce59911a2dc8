import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { type SqlBool, sql } from 'kysely';
import { settingsOf } from '../../../config.ts';
import { uuidv7 } from '../../../db/ids.ts';
import type { Context } from '../../../http/context.ts';
import { type FhirResource, isUuid, patientsOfRow } from '../../../http/fhir.ts';
import type { Services } from '../../../http/services.ts';
import type { ClaimedJob, JobKind } from '../../../jobs/kinds.ts';
import { instanceJobContext } from '../../../work/job-context.ts';
import { write } from '../../../work/write.ts';
import { formedOf, MAX_COUNT, parseSearch, type Search, searchRows } from '../store.ts';
import { type BulkExportSettings, bulkExportSettings } from './settings.ts';
import { type Source, sourcesOf } from './sources.ts';
import {
  blobKey,
  blobRecorded,
  type ExportRow,
  findExport,
  insertFile,
  lockExport,
  movePlace,
  type Place,
  removeExport,
} from './store.ts';

/**
 * The export's job: it walks each source in turn, in id order (the FHIR search's own keyset pages,
 * store.ts), and streams NDJSON lines into files in the blob store, each file ending at
 * CAIRN_FHIR_EXPORT_FILE_RESOURCES resources or CAIRN_FHIR_EXPORT_FILE_BYTES bytes. A file is the
 * unit of progress: once its blob is stored, one write records it and moves the export's place past
 * its last resource. A run that fails or dies (its lease runs out) is retried, and resumes at the
 * place: the file it was writing is written again, under the same key, from its first resource.
 */

export const RUN_EXPORT = 'fhir.export';
export const EXPIRE_EXPORT = 'fhir.export-expire';

export const NDJSON = 'application/fhir+ndjson';

/** One row of a source read: its line (none when a Patient-level export leaves it out) and its patients. */
interface Step {
  id: string;
  line: Buffer | null;
  patients: string[];
}

/** The patients a row belongs to, as the access log names them. */
function patientsOf(resource: FhirResource, row: Record<string, unknown>): string[] {
  return patientsOfRow(resource, row).filter((id): id is string => typeof id === 'string' && isUuid(id));
}

/**
 * The search an export makes of a source: updated after `_since` and up to `transactionTime`
 * (Bulk Data 2.0: "up to and including this instant"), a Patient-level export only rows with a patient.
 */
function searchOf(row: ExportRow, resource: FhirResource, settings: BulkExportSettings): Search {
  const lastUpdated = [`le${row.transaction_time.toISOString()}`];
  if (row.since) lastUpdated.push(`gt${row.since.toISOString()}`);
  const search = parseSearch(resource, { _lastUpdated: lastUpdated }, row.tenant_id);
  search.count = Math.min(MAX_COUNT, settings.fileResources);
  search.after = row.after_id ?? undefined;
  // A token confined to a patient started it: that patient's compartment, as its searches would be.
  if (row.compartment) search.compartment = row.compartment;
  const shown = resource.patient;
  if (row.level === 'PATIENT' && 'column' in shown) search.where.push(sql<SqlBool>`${sql.ref(`r.${shown.column}`)} IS NOT NULL`);
  return search;
}

/** The FHIR base URL the export was asked at (its kick-off URL up to `/fhir/R4`), for the links resources carry. */
export function baseOfRequest(request: string): string {
  const url = new URL(request);
  return `${url.origin}${url.pathname.slice(0, url.pathname.indexOf('/fhir/R4') + '/fhir/R4'.length)}`;
}

/** The source's rows from the export's place on, a page at a time. */
async function* walk(ctx: Context, row: ExportRow, resource: FhirResource, search: Search): AsyncGenerator<Step> {
  const at = { base: baseOfRequest(row.request) };
  for (;;) {
    const page = await searchRows(ctx, resource, search);
    if ('total' in page) return;
    for (const found of page.rows) {
      const patients = patientsOf(resource, found);
      // A Patient-level export leaves out what belongs to no patient (an appointment with none).
      const kept = row.level === 'SYSTEM' || patients.length > 0;
      const line = kept ? Buffer.from(`${JSON.stringify(resource.toFhir(found as never, at))}\n`) : null;
      yield { id: found.id, line, patients: kept ? patients : [] };
    }
    const last = page.rows.at(-1);
    if (!page.hasNext || !last) return;
    search.after = last.id;
  }
}

/**
 * Writes the export's next file from its place, or moves past a source with nothing left. Answers
 * false when the export is no longer where this run found it (cancelled, expired, taken over).
 */
async function writeNext(ctx: Context, row: ExportRow, source: Source, settings: BulkExportSettings): Promise<boolean> {
  const { blobs } = ctx.services.files;
  // A CDT's resource as the formation maps it now.
  const resource = await formedOf(ctx, source.resource);
  const steps = walk(ctx, row, resource, searchOf(row, resource, settings));
  let first: Step | undefined;
  while (!first) {
    const next = await steps.next();
    if (next.done) break;
    if (next.value.line) first = next.value;
  }
  const expiresAt = () => new Date(ctx.services.clock.now().getTime() + settings.retentionMs);
  // Nothing (more) to write of this source: on to the next, with no empty file.
  if (!first) {
    return write(ctx, (w) => movePlace(w, row, { sourceIndex: row.source_index + 1, afterId: null, expiresAt: expiresAt() }));
  }

  const file = { resources: 0, bytes: 0, hash: createHash('sha256'), patients: new Set<string>(), last: first.id, ended: false };
  async function* lines(): AsyncGenerator<Buffer> {
    let step: Step | undefined = first;
    while (step) {
      file.last = step.id;
      if (step.line) {
        file.resources += 1;
        file.bytes += step.line.length;
        file.hash.update(step.line);
        for (const patient of step.patients) file.patients.add(patient);
        yield step.line;
      }
      if (file.resources >= settings.fileResources || file.bytes >= settings.fileBytes) return;
      const next = await steps.next();
      file.ended = next.done === true;
      step = next.done ? undefined : next.value;
    }
  }
  const key = blobKey(ctx.scope, row.id, row.files);
  // Streamed: a page of rows is in memory at a time, never the file.
  await blobs.put(key, Readable.from(lines(), { objectMode: false }), NDJSON);
  await steps.return(undefined);
  const place: Place = file.ended
    ? { sourceIndex: row.source_index + 1, afterId: null }
    : { sourceIndex: row.source_index, afterId: file.last };
  const recorded = await write(ctx, async (w) => {
    const moved = await movePlace(w, row, { ...place, files: row.files + 1, resources: file.resources, expiresAt: expiresAt() });
    if (!moved) return false;
    await insertFile(w, {
      tenant_id: row.tenant_id,
      instance_id: row.instance_id,
      export_id: row.id,
      id: uuidv7(),
      seq: row.files,
      type: source.resource.type,
      permission: source.resource.permission,
      storage_key: key,
      resources: file.resources,
      size: file.bytes,
      sha256: file.hash.digest('hex'),
      patient_ids: [...file.patients],
      created_at: w.now,
    });
    return true;
  });
  // The export went meanwhile: its removal may have run before this blob was stored.
  if (!recorded && !(await blobRecorded(ctx.db, ctx.scope, row.id, key))) await blobs.remove([key]);
  return recorded;
}

/** The `fhir.export` job: the export's files from its place to its end. Answers the files written. */
export async function runExport(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const exportId = String(job.payload.exportId);
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:fhir-export');
  if (!ctx) return 0;
  const settings = settingsOf(services.config, bulkExportSettings);
  let written = 0;
  for (;;) {
    const row = await findExport(services.db, scope, exportId);
    if (row?.status !== 'IN_PROGRESS') return written;
    const key = row.sources[row.source_index];
    const expiresAt = new Date(services.clock.now().getTime() + settings.retentionMs);
    if (key === undefined) {
      await write(ctx, (w) =>
        movePlace(w, row, { sourceIndex: row.source_index, afterId: row.after_id, expiresAt, status: 'COMPLETED' }),
      );
      return written;
    }
    const source = sourcesOf(services.fhir).find((candidate) => candidate.key === key);
    if (!source) {
      // A resource no area declares any more (a release removed it): the export cannot be finished.
      const error = `${key} is no longer served`;
      await write(ctx, (w) =>
        movePlace(w, row, { sourceIndex: row.source_index, afterId: row.after_id, expiresAt, status: 'FAILED', error }),
      );
      return written;
    }
    if (!(await writeNext(ctx, row, source, settings))) return written;
    written += 1;
  }
}

/**
 * The `fhir.export-expire` job, queued at kick-off for the export's expiry: an export whose
 * expiry moved on (it progressed, or completed) waits again until then; one past it goes, with
 * its files. Answers the exports removed.
 */
export async function expireExport(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const exportId = String(job.payload.exportId);
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:fhir-export');
  if (!ctx) return 0;
  return write(ctx, async (w) => {
    const row = await lockExport(w, scope, exportId);
    if (!row) return 0;
    if (row.expires_at > w.now) {
      w.enqueue({ kind: EXPIRE_EXPORT, payload: { exportId }, runAt: row.expires_at });
      return 0;
    }
    await removeExport(w, scope, row);
    return 1;
  });
}

export const bulkExportJobs: Record<string, JobKind<Services>> = {
  [RUN_EXPORT]: {
    description: 'Writes a FHIR $export into NDJSON files, a file at a time, resuming after its last file when retried',
    run: runExport,
    // Each retry resumes after the last file written, so retries are cheap: a database or store
    // away for a while is waited out (30 s doubling to 15 minutes: about two hours in all).
    maxAttempts: 10,
    backoff: { baseMs: 30_000, maxMs: 15 * 60_000 },
  },
  [EXPIRE_EXPORT]: {
    description:
      'Removes a FHIR $export and its files once CAIRN_FHIR_EXPORT_RETENTION_HOURS have passed since its end or its last progress',
    run: expireExport,
    maxAttempts: 12,
  },
};
