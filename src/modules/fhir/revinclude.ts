import type { Context } from '../../http/context.ts';
import { mayReadType } from '../../http/scopes.ts';
import { PROVENANCE, provenanceOf } from './provenance.ts';
import type { Found } from './store.ts';

/**
 * `_revinclude=Provenance:target` on every type's search (US Core's SHALL where a type has a
 * profile): with a page of matches, their Provenance (the audit rows about them, provenance.ts)
 * as entries of mode `include`, oldest first, in one statement per page on the audit log's entity
 * index (tenant, entity type, entity id). A caller who sees the matches may see who changed them;
 * a SMART token needs `Provenance.r` too, or none is added. Any other value is ignored, as an
 * unknown parameter is, and left out of the links.
 */

const SERVED = `${PROVENANCE}:target`;

/** The `_revinclude` values served, among those asked for. */
export function parseRevIncludes(asked: unknown): string[] {
  return [...new Set([asked ?? []].flat().map(String))].filter((value) => value === SERVED);
}

/** The Provenance of a page's matches, as Bundle entries, and the patients they name (for the access log). */
export async function revincluded(ctx: Context, revIncludes: readonly string[], page: readonly Found[], base: string) {
  const audited = page.filter(({ source }) => source.auditEntity !== undefined);
  if (revIncludes.length === 0 || audited.length === 0 || !mayReadType(ctx.caller?.scopes, PROVENANCE)) {
    return { entries: [], patients: [] };
  }
  // An audit row names its record by entity type and id: each match's pair, its FHIR type by it.
  const typeOf = new Map(audited.map(({ source, row }) => [`${source.auditEntity}/${row.id}`, source.type]));
  const rows = await ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('entity_type', 'in', [...new Set(audited.map(({ source }) => source.auditEntity!))])
    .where(
      'entity_id',
      'in',
      audited.map(({ row }) => row.id),
    )
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
  const about = rows.flatMap((row) => {
    const type = typeOf.get(`${row.entity_type}/${row.entity_id}`);
    return type ? [{ row, type }] : [];
  });
  return {
    entries: about.map(({ row, type }) => ({
      fullUrl: `${base}/${PROVENANCE}/${row.id}`,
      resource: provenanceOf(row, type, ctx.scope.instanceId),
      search: { mode: 'include' as const },
    })),
    patients: about.map(({ row }) => row.patient_id),
  };
}
