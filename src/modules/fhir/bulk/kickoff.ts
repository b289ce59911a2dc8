import type { IncomingHttpHeaders } from 'node:http';
import { settingsOf } from '../../../config.ts';
import { uuidv7 } from '../../../db/ids.ts';
import { oldestWriteInFlight } from '../../../db/in-flight.ts';
import { lockKey } from '../../../db/locks.ts';
import type { Context } from '../../../http/context.ts';
import { type FhirResource, invalidParam } from '../../../http/fhir.ts';
import { confinement } from '../../../http/scopes.ts';
import type { Caller } from '../../../tenancy/access.ts';
import { ApiError, badField } from '../../../wire/errors.ts';
import { write } from '../../../work/write.ts';
import { EXPIRE_EXPORT, RUN_EXPORT } from './job.ts';
import { bulkExportSettings } from './settings.ts';
import { belongsToPatients, type Source } from './sources.ts';
import { countRunning, type ExportRow, insertExport } from './store.ts';
import type { ExportLevel } from './tables.ts';

/**
 * The kick-off of `$export` (Bulk Data 2.0, "Bulk Data Kick-off Request"): its headers and
 * parameters checked, the sources it walks chosen by the caller's permissions, and the export
 * stored with its job, answered 202 at once.
 */

/** What the kick-off's query may carry; `_type` arrives split at commas, repeats joined (as the spec asks). */
export interface KickOffQuery {
  _type?: string[];
  _since?: string;
  _outputFormat?: string;
  [name: string]: unknown;
}

/** Bulk Data 2.0: the server SHALL accept `application/fhir+ndjson`, `application/ndjson` and `ndjson`. */
const OUTPUT_FORMATS = new Set(['application/fhir+ndjson', 'application/ndjson', 'ndjson']);

/** Parameters Bulk Data defines that Cairn does not serve: the spec asks for an error rather than silence. */
const UNSERVED = ['_elements', '_typeFilter', 'patient', 'includeAssociatedData'];

/** A FHIR instant: to the second at least, with its zone. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export interface Plan {
  level: ExportLevel;
  sources: Source[];
  since: Date | null;
  /** The patient a `patient/` token confines it to (compartmentOf). */
  compartment?: string;
}

/**
 * The patient whose compartment an export reads, when the caller's token reaches the types exported
 * through `patient/` scopes only (http/scopes.ts): the patient of its launch, kept on the export for
 * its job. Such a token without a patient reaches nothing: 403.
 */
export function compartmentOf(caller: Caller | undefined, sources: readonly Source[]): string | undefined {
  const confined = sources.map((source) => confinement(caller, source.resource.type, 's')).find(Boolean);
  if (!confined) return undefined;
  if (confined.patient === null) {
    throw new ApiError('ACCESS_DENIED', {}, 'A token with patient/ scopes and no patient reaches no records');
  }
  return confined.patient;
}

/** The preferences of a `Prefer` header (RFC 7240), repeated or comma-separated, without their parameters. */
const preferences = (header: string | string[] | undefined) =>
  [header ?? []]
    .flat()
    .flatMap((value) => value.split(','))
    .map((part) => part.split(';')[0]!.trim().toLowerCase());

/** Whether an Accept header takes FHIR JSON (the only format of the kick-off's OperationOutcome). */
function acceptsFhirJson(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const types = header.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  return types.some((type) => ['application/fhir+json', 'application/json', 'application/*', '*/*'].includes(type));
}

export function parseSince(value: string): Date {
  const instant = INSTANT.test(value) ? new Date(value) : undefined;
  // February 31 and 24:00 parse as a later date: the date and time written must read back as written.
  const written = value.slice(0, 19);
  if (!instant || Number.isNaN(instant.getTime()) || new Date(`${written}Z`).toISOString().slice(0, 19) !== written) {
    throw invalidParam('_since', 'must be a FHIR instant: YYYY-MM-DDThh:mm:ss[.fff] with Z or an offset');
  }
  return instant;
}

/**
 * The export a kick-off asks for, or the error it answers (400 OperationOutcome, 403 for a type
 * named whose permission the caller lacks). Without `_type`, the sources the caller may read
 * (Bulk Data: "within the scope of the client authorization"); with it, every source of each type
 * named, or a refusal: a type asked for is exported whole or not at all.
 */
export function planExport(
  sources: readonly Source[],
  level: ExportLevel,
  query: KickOffQuery,
  headers: IncomingHttpHeaders,
  mayRead: (resource: FhirResource) => boolean,
): Plan {
  if (!preferences(headers.prefer).includes('respond-async')) {
    throw badField('headers.prefer', 'must be respond-async: the export runs asynchronously (Bulk Data 2.0)');
  }
  if (!acceptsFhirJson(headers.accept)) throw badField('headers.accept', 'must accept application/fhir+json');
  const format = query._outputFormat?.replaceAll(' ', '+');
  if (format !== undefined && !OUTPUT_FORMATS.has(format)) {
    throw invalidParam('_outputFormat', `must be one of ${[...OUTPUT_FORMATS].join(', ')}`);
  }
  for (const name of UNSERVED) if (query[name] !== undefined) throw invalidParam(name, 'is not supported by this server');
  const since = query._since === undefined ? null : parseSince(query._since);
  const eligible = sources.filter((source) => level === 'SYSTEM' || belongsToPatients(source.resource));
  const named = query._type ?? [];
  if (named.length === 0) {
    const readable = eligible.filter((source) => mayRead(source.resource));
    if (readable.length === 0) {
      throw new ApiError('ACCESS_DENIED', {}, 'The caller may read none of the resource types this export serves');
    }
    return { level, sources: readable, since };
  }
  const unknown = named.filter((type) => !sources.some((source) => source.resource.type === type));
  if (unknown.length > 0) throw invalidParam('_type', `${unknown.join(', ')}: not a resource type this server exports`);
  const outside = named.filter((type) => !eligible.some((source) => source.resource.type === type));
  if (outside.length > 0) throw invalidParam('_type', `${outside.join(', ')}: outside the Patient compartment`);
  const chosen = eligible.filter((source) => named.includes(source.resource.type));
  const refused = chosen.find((source) => !mayRead(source.resource));
  if (refused) {
    const { permission, type } = refused.resource;
    throw new ApiError(
      'ACCESS_DENIED',
      { permission },
      `The caller may not read ${type} (${permission}, and its scope for a SMART token)`,
    );
  }
  return { level, sources: chosen, since };
}

/**
 * Stores the export and queues its job and its expiry. Its `transactionTime` is the present, held
 * back to before any write of the tenant still in flight (and the settle time on PostgreSQL), as
 * the bulk export's cursor is (http/export.ts): a write stamped before it but committed after would
 * otherwise be in neither this export nor the next one `_since` it. A caller may have
 * CAIRN_FHIR_EXPORT_MAX_RUNNING exports in progress; one more is 429 (Bulk Data 2.0 asks for it).
 */
export async function startExport(ctx: Context, plan: Plan, request: string): Promise<ExportRow> {
  const { clock, dbKind, config } = ctx.services;
  const settings = settingsOf(config, bulkExportSettings);
  const now = clock.now().getTime();
  const inFlight = await oldestWriteInFlight(ctx.db, dbKind, ctx.scope.tenantId);
  const transactionTime = new Date(Math.min(now, inFlight?.getTime() ?? now) - (dbKind === 'pglite' ? 0 : settings.settleMs));
  return write(ctx, async (w) => {
    const caller = w.actor.id;
    await lockKey(w.db, `${ctx.scope.tenantId}/fhir-export/${caller ?? w.actor.name}`);
    if ((await countRunning(w.db, ctx.scope, caller)) >= settings.maxRunning) {
      throw new ApiError(
        'TOO_MANY_REQUESTS',
        { maxRunning: settings.maxRunning },
        `At most ${settings.maxRunning} exports may be in progress at once: wait for one to end, or cancel one`,
        { 'Retry-After': '60' },
      );
    }
    const row: ExportRow = {
      tenant_id: ctx.scope.tenantId,
      instance_id: ctx.scope.instanceId,
      id: uuidv7(),
      status: 'IN_PROGRESS',
      level: plan.level,
      request,
      sources: plan.sources.map((source) => source.key),
      permissions: [...new Set(plan.sources.map((source) => source.resource.permission))],
      since: plan.since,
      transaction_time: transactionTime,
      source_index: 0,
      after_id: null,
      files: 0,
      resources: 0,
      error: null,
      requested_by: caller,
      requested_by_name: w.actor.name,
      compartment: plan.compartment ?? null,
      created_at: w.now,
      updated_at: w.now,
      completed_at: null,
      expires_at: new Date(w.now.getTime() + settings.retentionMs),
    };
    await insertExport(w, row);
    w.enqueue({ kind: RUN_EXPORT, payload: { exportId: row.id } });
    w.enqueue({ kind: EXPIRE_EXPORT, payload: { exportId: row.id }, runAt: row.expires_at });
    return row;
  });
}
