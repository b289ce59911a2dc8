import { type Kysely, sql } from 'kysely';
import type { DB, NewRow, Row } from '../../../db/schema.ts';
import type { Scope } from '../../../db/scope.ts';
import type { KeptRecords, PatientScope, PatientTexts, Work } from '../../../events/work.ts';
import type {} from './tables.ts';

/** The purges' SQL: every statement names the tenant and the instance. */

export type PurgeRow = Row<'patient_purges'>;

export function findPurge(db: Kysely<DB>, scope: Scope, id: string, forUpdate = false): Promise<PurgeRow | undefined> {
  let query = db
    .selectFrom('patient_purges')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The patient's purge still to run, if one was asked for already. */
export function queuedPurgeOf(db: Kysely<DB>, scope: Scope, patientId: string): Promise<PurgeRow | undefined> {
  return db
    .selectFrom('patient_purges')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('patient_id', '=', patientId)
    .where('status', '=', 'QUEUED')
    .executeTakeFirst();
}

export async function insertPurge(db: Kysely<DB>, row: NewRow<'patient_purges'>): Promise<PurgeRow> {
  return db.insertInto('patient_purges').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function completePurge(db: Kysely<DB>, scope: Scope, id: string, kept: KeptRecords[], at: Date): Promise<void> {
  await db
    .updateTable('patient_purges')
    .set({ status: 'DONE', kept: JSON.stringify(kept), completed_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .execute();
}

/**
 * Clears the free text of an area's records that name the patient and outlive the purge (a
 * calendar event): each column declared becomes its replacement where it was set, in one statement
 * of the tenant and instance; the update stamp moves when the records carry one.
 */
export async function clearTexts(w: Work, scope: PatientScope, texts: PatientTexts, patientId: string): Promise<void> {
  const sets = Object.entries(texts.cleared).map(([column, value]) =>
    value === null
      ? sql`${sql.ref(column)} = NULL`
      : sql`${sql.ref(column)} = CASE WHEN ${sql.ref(column)} IS NULL THEN NULL ELSE ${value}::text END`,
  );
  if (texts.stamped) {
    const { updated_at, updated_by, updated_by_name } = w.updated();
    sets.push(sql`updated_at = ${updated_at}, updated_by = ${updated_by}::uuid, updated_by_name = ${updated_by_name}`);
  }
  await sql`
    UPDATE ${sql.table(texts.table)} SET ${sql.join(sets)}
     WHERE tenant_id = ${scope.tenantId} AND instance_id = ${scope.instanceId} AND ${texts.naming(scope, patientId)}`.execute(
    w.db,
  );
}
