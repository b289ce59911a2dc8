import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import { absent, compact, type FhirResource, isUuid, nothing, stringParam, tokenOf } from '../../http/fhir.ts';

/**
 * A Cairn user (a member of the care team) as a FHIR R4 Practitioner, profiled as US Core 6.1.0
 * Practitioner. Users are the tenant's, so every instance's FHIR API serves the same ones; deleted
 * users are not served. Each field's mapping is in docs/fhir.md.
 */

export const USER_ID_SYSTEM = 'https://cairn.health/fhir/sid/user-id';
export const USERNAME_SYSTEM = 'https://cairn.health/fhir/sid/username';

type UserRow = Row<'users'>;

function practitionerOf(row: UserRow) {
  return {
    resourceType: 'Practitioner',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [
      { use: 'usual', system: USER_ID_SYSTEM, value: row.id },
      { use: 'secondary', system: USERNAME_SYSTEM, value: row.username },
    ],
    active: row.enabled,
    // US Core asks for a name with a family name: a user without one says so (data-absent-reason),
    // and one with no name at all is named by the username.
    name: [
      row.first_name || row.last_name
        ? {
            use: 'official',
            family: row.last_name,
            ...(row.last_name ? {} : { _family: absent('unknown') }),
            given: row.first_name ? [row.first_name] : [],
            suffix: row.credentials ? [row.credentials] : [],
          }
        : { text: row.username, _family: absent('unknown') },
    ],
    telecom: [
      { system: 'email', value: row.email, use: 'work' },
      ...(row.phone ? [{ system: 'phone', value: row.phone, use: 'work' }] : []),
    ],
  };
}

/** `system|value`, `|value` or `value`: the user's id or username. */
function identifier(token: string) {
  const { system, code: value } = tokenOf(token);
  const byId = (!system || system === USER_ID_SYSTEM) && isUuid(value);
  const byName = !system || system === USERNAME_SYSTEM;
  if (byId && byName) return sql<SqlBool>`(r.id = ${value} OR lower(r.username) = ${value.toLowerCase()})`;
  if (byId) return sql<SqlBool>`r.id = ${value}`;
  if (byName) return sql<SqlBool>`lower(r.username) = ${value.toLowerCase()}`;
  return nothing;
}

/** Practitioner, with US Core's searches (`name`, `identifier`), each served by an index of users. */
export const fhirPractitioner: FhirResource = {
  type: 'Practitioner',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner',
  permission: 'USER_READ',
  table: 'users',
  instanceScoped: false,
  where: [sql<SqlBool>`r.deleted_at IS NULL`],
  patient: { none: "a practitioner is a member of the care team: the answer carries no patient's data" },
  logAs: 'USER',
  auditEntity: 'USER',
  notFound: 'USER_NOT_FOUND',
  params: {
    name: stringParam('name', 'last_name', 'first_name'),
    family: stringParam('family', 'last_name'),
    given: stringParam('given', 'first_name'),
    identifier: { type: 'token', where: identifier },
  },
  toFhir: (row: UserRow) => compact(practitionerOf(row)),
};
