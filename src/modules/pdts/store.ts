import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { likeContains } from '../../db/sql.ts';
import { applySort, filteredPage, offsetOf, type Paging, type SortKey } from '../../http/pagination.ts';
import type { PdtRecordRow } from '../../records/store.ts';
import { type PatientReadRow, patientRelations, type RelationScope } from '../patients/index.ts';

/** Sort keys: API name → SQL, each the leading sort column of a pdt_records index (0003). */
export const sortablePdtFields: Record<string, string> = {
  createdAt: 'r.created_at',
  updatedAt: 'r.updated_at',
};

/** A record of this instance of any type, deleted or not (a contact's record); with `pdtName`, of that type. */
export async function findPdtRecord(
  db: Kysely<DB>,
  where: Scope,
  id: string,
  pdtName?: string,
  options: { forUpdate?: boolean; forShare?: boolean } = {},
): Promise<PdtRecordRow | undefined> {
  let query = db
    .selectFrom('pdt_records')
    .selectAll()
    .where('tenant_id', '=', where.tenantId)
    .where('instance_id', '=', where.instanceId)
    .where('id', '=', id);
  if (pdtName !== undefined) query = query.where('pdt_name', '=', pdtName);
  if (options.forUpdate) query = query.forUpdate();
  else if (options.forShare) query = query.forShare();
  return query.executeTakeFirst();
}

export interface PdtRecordFilter {
  search?: string | undefined;
  showDeleted: boolean;
}

export async function listPdtRecords(
  db: Kysely<DB>,
  where: Scope,
  pdtName: string,
  filter: PdtRecordFilter,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: PdtRecordRow[]; total: number }> {
  let query = db
    .selectFrom('pdt_records as r')
    .where('r.tenant_id', '=', where.tenantId)
    .where('r.instance_id', '=', where.instanceId)
    .where('r.pdt_name', '=', pdtName);
  if (!filter.showDeleted) query = query.where('r.deleted', '=', false);
  const search = filter.search?.trim();
  // Served by the trigram index on lower(full_value).
  if (search) query = query.where(sql<SqlBool>`lower(r.full_value) LIKE ${likeContains(search.toLowerCase())}`);
  const [rows, count] = await Promise.all([
    applySort(query.selectAll('r'), sort, [{ column: 'r.created_at', direction: 'asc' }], 'r.id')
      .limit(paging.size)
      .offset(offsetOf(paging))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** The latest change to any record of the type, deletions included, or null when it has none. */
export async function lastUpdatedAt(db: Kysely<DB>, where: Scope, pdtName: string): Promise<Date | null> {
  const row = await db
    .selectFrom('pdt_records')
    .select((eb) => eb.fn.max('updated_at').as('last'))
    .where('tenant_id', '=', where.tenantId)
    .where('instance_id', '=', where.instanceId)
    .where('pdt_name', '=', pdtName)
    .executeTakeFirst();
  const last = row?.last as Date | string | null | undefined;
  return last ? new Date(last) : null;
}

/** The patients of this instance with a contact backed by the record, with their relations, in id (creation) order. */
export async function patientsOfPdtRecord(
  db: Kysely<DB>,
  where: RelationScope,
  pdtRecordId: string,
  paging: Paging,
): Promise<{ rows: PatientReadRow[]; total: number }> {
  const base = db
    .selectFrom('patients as p')
    .where('p.tenant_id', '=', where.tenantId)
    .where('p.instance_id', '=', where.instanceId)
    .where('p.id', 'in', (eb) =>
      eb
        .selectFrom('contacts as c')
        .select('c.patient_id')
        .where('c.tenant_id', '=', where.tenantId)
        .where('c.pdt_record_id', '=', pdtRecordId),
    );
  const list = {
    base: base as never,
    table: 'patients',
    alias: 'p',
    tenantId: where.tenantId,
    searched: false,
    extra: patientRelations(where),
  };
  const order = { keys: [], fallback: [{ column: 'p.id', direction: 'asc' as const }], tieBreaker: 'p.id' };
  return filteredPage<PatientReadRow>(db as Kysely<never>, list, order, paging);
}
