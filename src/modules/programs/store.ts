import { type Kysely, sql } from 'kysely';
import type { DB, NewRow, Row, RowUpdate } from '../../db/schema.ts';
import type { PatientScope, Scope } from '../../db/scope.ts';
import type { ProgramPhase } from './tables.ts';

export type EnrolmentRow = Row<'patient_programs'>;

/** The enrolment that is not FINISHED: at most one per patient and program (patient_programs_running_key). */
export async function runningEnrolment(
  db: Kysely<DB>,
  ref: PatientScope,
  programName: string,
): Promise<EnrolmentRow | undefined> {
  return db
    .selectFrom('patient_programs')
    .selectAll()
    .where('tenant_id', '=', ref.tenantId)
    .where('patient_id', '=', ref.patientId)
    .where('instance_id', '=', ref.instanceId)
    .where('program_name', '=', programName)
    .where('status', '<>', 'FINISHED')
    .executeTakeFirst();
}

export async function enrolmentById(db: Kysely<DB>, ref: PatientScope, id: string): Promise<EnrolmentRow | undefined> {
  return db
    .selectFrom('patient_programs')
    .selectAll()
    .where('tenant_id', '=', ref.tenantId)
    .where('id', '=', id)
    .where('patient_id', '=', ref.patientId)
    .where('instance_id', '=', ref.instanceId)
    .executeTakeFirst();
}

/**
 * Per patient and program, the enrolment a reader sees: the running one, else the latest
 * finished one. One query for any number of patients (a whole page of the patients list).
 */
export async function shownEnrolments(
  db: Kysely<DB>,
  { tenantId, instanceId }: Scope,
  patientIds: string[],
): Promise<EnrolmentRow[]> {
  if (patientIds.length === 0) return [];
  return db
    .selectFrom('patient_programs')
    .selectAll()
    .distinctOn(['patient_id', 'program_name'])
    .where('tenant_id', '=', tenantId)
    .where('patient_id', 'in', patientIds)
    .where('instance_id', '=', instanceId)
    .orderBy('patient_id')
    .orderBy('program_name')
    .orderBy(sql`status = 'FINISHED'`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function insertEnrolment(db: Kysely<DB>, row: NewRow<'patient_programs'>): Promise<EnrolmentRow> {
  return db.insertInto('patient_programs').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateEnrolment(
  db: Kysely<DB>,
  tenantId: string,
  id: string,
  set: RowUpdate<'patient_programs'>,
): Promise<EnrolmentRow> {
  return db
    .updateTable('patient_programs')
    .set(set)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteEnrolment(db: Kysely<DB>, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('patient_programs').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/** jsonb columns are written as JSON text, the same on PGlite and PostgreSQL. */
export function phasesJson(phases: ProgramPhase[]): string {
  return JSON.stringify(phases);
}
