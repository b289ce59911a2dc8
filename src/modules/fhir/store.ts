import type { Context } from '../../http/context.ts';
import { compact, fhirPatient } from './patient.ts';
import { parsePatientSearch } from './search.ts';

/** The patient's row, by id, in the instance. */
export function findPatientRow(ctx: Context, id: string) {
  return ctx.db
    .selectFrom('patients')
    .selectAll()
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('id', '=', id)
    .where('instance_id', '=', ctx.scope.instanceId)
    .executeTakeFirst();
}

/**
 * A searchset Bundle: the page in id order from the cursor on (an index on tenant, instance and
 * id, so page 1,000 costs what page 1 does), one row more than the page read to know whether
 * there is a next; `_summary=count` the total alone.
 */
export async function searchPatients(ctx: Context, query: Record<string, unknown>, base: string) {
  const search = parsePatientSearch(query);
  let select = ctx.db
    .selectFrom('patients')
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('instance_id', '=', ctx.scope.instanceId);
  for (const condition of search.where) select = select.where(condition);
  const self = linkOf(base, search.applied, search.after);
  if (search.summaryCount) {
    const { total } = await select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { resourceType: 'Bundle', type: 'searchset', total: Number(total), link: [{ relation: 'self', url: self }] };
  }
  if (search.after) select = select.where('id', '>', search.after);
  const rows = await select
    .selectAll()
    .orderBy('id')
    .limit(search.count + 1)
    .execute();
  const page = rows.slice(0, search.count);
  const last = page.at(-1);
  const next = rows.length > search.count && last ? linkOf(base, search.applied, last.id) : undefined;
  return compact({
    resourceType: 'Bundle',
    type: 'searchset',
    link: [{ relation: 'self', url: self }, ...(next ? [{ relation: 'next', url: next }] : [])],
    entry: page.map((row) => ({ fullUrl: `${base}/Patient/${row.id}`, resource: fhirPatient(row), search: { mode: 'match' } })),
  });
}

function linkOf(base: string, applied: [string, string][], after: string | undefined): string {
  const params = new URLSearchParams(applied);
  if (after) params.set('_cursor', after);
  const text = params.toString();
  return `${base}/Patient${text ? `?${text}` : ''}`;
}
