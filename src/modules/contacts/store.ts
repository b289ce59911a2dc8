import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { PatientScope } from '../../db/scope.ts';
import { applySort, offsetOf, type Paging, type SortKey } from '../../http/pagination.ts';
import type { ContactRow } from './views.ts';

/** One patient's contacts; every query names the tenant, the instance and the patient. */

/** Sort keys: API name → SQL, each served by a contacts index of 0003 (tenant, patient, key, id). */
export const sortableContactFields: Record<string, string> = {
  createdAt: 'c.created_at',
  name: 'c.name',
  relation: 'c.relation',
};

export async function findContact(
  db: Kysely<DB>,
  where: PatientScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ContactRow | undefined> {
  let query = db
    .selectFrom('contacts')
    .selectAll()
    .where('tenant_id', '=', where.tenantId)
    .where('instance_id', '=', where.instanceId)
    .where('patient_id', '=', where.patientId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export interface ContactFilter {
  active?: boolean | undefined;
  relation?: string | undefined;
}

export async function listContacts(
  db: Kysely<DB>,
  where: PatientScope,
  filter: ContactFilter,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: ContactRow[]; total: number }> {
  let query = db
    .selectFrom('contacts as c')
    .where('c.tenant_id', '=', where.tenantId)
    .where('c.instance_id', '=', where.instanceId)
    .where('c.patient_id', '=', where.patientId);
  if (filter.active !== undefined) query = query.where('c.active', '=', filter.active);
  if (filter.relation !== undefined) query = query.where('c.relation', '=', filter.relation);
  const [rows, count] = await Promise.all([
    applySort(query.selectAll('c'), sort, [{ column: 'c.created_at', direction: 'asc' }], 'c.id')
      .limit(paging.size)
      .offset(offsetOf(paging))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
