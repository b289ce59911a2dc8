import type { FhirResource } from '../../http/fhir.ts';
import { type Interaction, parseScope, scopeOf } from '../../http/scopes.ts';
import type { Access } from '../../tenancy/access.ts';

/** FHIR's Provenance, which the fhir area serves from the audit log of the resources declaring an `auditEntity`. */
const PROVENANCE = 'Provenance';

/**
 * The scopes a backend-services token is granted: of those asked for, each resource type the
 * FHIR API serves whose records the client's roles may read (in some instance of the tenant),
 * with r and s only (the API is read-only). `system/*.rs` becomes one scope per such type, so
 * the token says exactly what it may do. Scopes Cairn does not know are left out, as OAuth lets a
 * server grant less than asked; none left is `invalid_scope`.
 */
export function grantedScopes(requested: string, resources: readonly FhirResource[], access: Access): string[] {
  const readable = new Set(resources.filter((resource) => access.permissions.has(resource.permission)).map((r) => r.type));
  // Provenance (the fhir area's, from the audit log) is read where its target is: any audited type read opens it.
  if (resources.some((r) => r.auditEntity && access.permissions.has(r.permission))) readable.add(PROVENANCE);
  const granted = new Map<string, Set<Interaction>>();
  for (const text of requested.split(' ').filter(Boolean)) {
    const scope = parseScope(text);
    if (scope?.context !== 'system') continue;
    const types = scope.type === '*' ? [...readable] : readable.has(scope.type) ? [scope.type] : [];
    for (const type of types) {
      const interactions = granted.get(type) ?? new Set();
      for (const interaction of scope.interactions) interactions.add(interaction);
      granted.set(type, interactions);
    }
  }
  return [...granted]
    .filter(([, interactions]) => interactions.size > 0)
    .map(([type, interactions]) =>
      scopeOf(
        type,
        (['r', 's'] as const).filter((i) => interactions.has(i)),
      ),
    );
}

/** What the discovery document lists: every type served, read and search. */
export const supportedScopes = (resources: readonly FhirResource[]) => [
  'system/*.rs',
  ...new Set(resources.map((resource) => scopeOf(resource.type, ['r', 's']))),
  ...(resources.some((resource) => resource.auditEntity) ? [scopeOf(PROVENANCE, ['r'])] : []),
];
