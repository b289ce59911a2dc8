import type { Kysely } from 'kysely';
import { lockKey } from '../db/locks.ts';
import type { DB, Row } from '../db/schema.ts';
import type { Scope } from '../db/scope.ts';
import type { Work } from '../events/work.ts';
import type { Context } from '../http/context.ts';
import { ApiError } from '../wire/errors.ts';
import { type WriteOptions, write } from '../work/write.ts';

export type PatientRow = Row<'patients'>;

/**
 * The one way to read or write under a patient. Reads check the patient exists in the caller's
 * instance; writes run in one transaction that first locks the patient row FOR KEY SHARE: the
 * weakest lock that keeps the row from being deleted until the transaction ends, so a child row
 * can never lose its parent mid-write (a concurrent DELETE waits, then removes it with the rest),
 * while other writers under the same patient, and changes to the patient itself, go on in
 * parallel. A patient that is missing, or was deleted first, is 404 PATIENT_NOT_FOUND.
 */
export async function requirePatient(ctx: Context, patientId: string, db: Kysely<DB> = ctx.db): Promise<PatientRow> {
  const row = await patientQuery(db, ctx.scope, patientId).executeTakeFirst();
  if (!row) throw new ApiError('PATIENT_NOT_FOUND', { patientId });
  return row;
}

export interface PatientWriteOptions extends WriteOptions {
  /**
   * Writers naming the same key under one patient run one after another (an advisory lock), for
   * rules that span rows: one enrolment per program, one record of a SINGLE_RECORD type.
   */
  serialize?: string;
}

/** A write (the unit of work) under a patient, held as described above. */
export async function withPatient<T>(
  ctx: Context,
  patientId: string,
  work: (w: Work, patient: PatientRow) => Promise<T>,
  options: PatientWriteOptions = {},
): Promise<T> {
  return write(
    ctx,
    async (w) => {
      const patient = await lockPatient(w.db, ctx.scope, patientId);
      if (!patient) throw new ApiError('PATIENT_NOT_FOUND', { patientId });
      if (options.serialize) await lockKey(w.db, `${ctx.scope.tenantId}/patient/${patient.id}/${options.serialize}`);
      return work(w, patient);
    },
    options,
  );
}

/**
 * The lock itself, for a write inside a transaction that names a patient in its body rather than
 * its path (a task's patient): the patient, held until the transaction ends, or undefined.
 */
export function lockPatient(trx: Kysely<DB>, scope: Scope, patientId: string): Promise<PatientRow | undefined> {
  return patientQuery(trx, scope, patientId).forKeyShare().executeTakeFirst();
}

function patientQuery(db: Kysely<DB>, scope: Scope, patientId: string) {
  return db
    .selectFrom('patients')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', patientId);
}
