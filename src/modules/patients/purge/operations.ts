import type { Kysely } from 'kysely';
import { uuidv7 } from '../../../db/ids.ts';
import type { DB } from '../../../db/schema.ts';
import type { KeptRecords, PatientData, PatientScope, Work } from '../../../events/work.ts';
import type { Context } from '../../../http/context.ts';
import type { Services } from '../../../http/services.ts';
import type { ClaimedJob } from '../../../jobs/kinds.ts';
import { ApiError } from '../../../wire/errors.ts';
import { instanceJobContext } from '../../../work/job-context.ts';
import { write } from '../../../work/write.ts';
import { findPatient } from '../store.ts';
import { clearTexts, completePurge, findPurge, insertPurge, type PurgeRow, queuedPurgeOf } from './store.ts';

/** The job kind running a purge; its payload names the purge only, never the patient. */
export const PURGE_PATIENT = 'patients.purge';

export function purgeView(row: PurgeRow) {
  return {
    id: row.id,
    patientId: row.patient_id,
    status: row.status,
    kept: row.kept,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/** What the areas keep of the patient, and why, in the areas' order. */
async function keptOf(db: Kysely<DB>, data: readonly PatientData[], scope: PatientScope, patientId: string) {
  const kept: KeptRecords[] = [];
  for (const area of data) {
    const records = await area.kept?.(db, scope, patientId);
    if (records) kept.push(records);
  }
  return kept;
}

/**
 * POST .../patients/{id}/purge: the purge is recorded and its job queued in one write (202). A
 * purge already queued for the patient answers again, with no second job.
 */
export async function requestPurge(ctx: Context, patientId: string, confirm: string) {
  if (confirm !== patientId) throw new ApiError('PURGE_NOT_CONFIRMED', { patientId });
  const { scope, services } = ctx;
  return write(ctx, async (w) => {
    const patient = await findPatient(w.db, scope, patientId, 'ID', { forUpdate: true });
    if (!patient) throw new ApiError('PATIENT_NOT_FOUND', { id: patientId, type: 'ID' });
    const queued = await queuedPurgeOf(w.db, scope, patientId);
    if (queued) return queued;
    const row = await insertPurge(w.db, {
      tenant_id: scope.tenantId,
      instance_id: scope.instanceId,
      id: uuidv7(),
      patient_id: patientId,
      status: 'QUEUED',
      kept: JSON.stringify(await keptOf(w.db, services.patientData, scope, patientId)),
      requested_by: w.actor.id,
      requested_by_name: w.actor.name,
      created_at: w.now,
      completed_at: null,
    });
    w.enqueue({ kind: PURGE_PATIENT, payload: { purgeId: row.id } });
    w.changed({ action: 'PATIENT_PURGE_REQUESTED', entityType: 'PATIENT_PURGE', entityId: row.id, patientId });
    return row;
  });
}

export async function getPurge(ctx: Context, purgeId: string) {
  const row = await findPurge(ctx.db, ctx.scope, purgeId);
  if (!row) throw new ApiError('PATIENT_PURGE_NOT_FOUND', { purgeId });
  return purgeView(row);
}

/**
 * Erases the patient in one write: the free text of records that outlive it while naming them
 * (each area's `texts`, first: they find the patient through rows the purges remove), the areas'
 * purges (each area's `purge`, else its `remove`), then the row, whose keys cascade. Every step
 * changes what is still there, so a run that died (rolled back) is simply run again; a purge DONE
 * is not run twice.
 */
async function purgePatient(w: Work, data: readonly PatientData[], scope: PatientScope, patientId: string) {
  await findPatient(w.db, scope, patientId, 'ID', { forUpdate: true });
  const addresses = new Set<string>();
  for (const area of data) for (const address of (await area.addresses?.(w.db, scope, patientId)) ?? []) addresses.add(address);
  const patient = { id: patientId, addresses: [...addresses] };
  for (const area of data) for (const texts of area.texts ?? []) await clearTexts(w, scope, texts, patientId);
  for (const area of data) {
    if (area.purge) await area.purge(w, scope, patient);
    else await area.remove?.(w, scope, patientId);
  }
  await w.db.deleteFrom('patients').where('tenant_id', '=', scope.tenantId).where('id', '=', patientId).execute();
}

/** The `patients.purge` job: runs the purge, records what it kept, and audits it with the patient's id only. */
export async function runPurge(job: ClaimedJob, services: Services): Promise<void> {
  const { purgeId } = job.payload as { purgeId: string };
  if (!job.instanceId) return;
  const ctx = await instanceJobContext(services, { tenantId: job.tenantId, instanceId: job.instanceId }, 'SYSTEM:patient-purge');
  if (!ctx) return;
  const { scope } = ctx;
  await write(ctx, async (w) => {
    const purge = await findPurge(w.db, scope, purgeId, true);
    if (!purge || purge.status === 'DONE') return;
    await purgePatient(w, services.patientData, scope, purge.patient_id);
    await completePurge(w.db, scope, purge.id, await keptOf(w.db, services.patientData, scope, purge.patient_id), w.now);
    w.changed({ action: 'PATIENT_PURGED', entityType: 'PATIENT', entityId: purge.patient_id, patientId: purge.patient_id });
  });
}
