import { sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import { absentParam, compact, type FhirResource, reference, referenceParam } from '../../http/fhir.ts';

/**
 * A user's roles in an instance as a FHIR R4 PractitionerRole, profiled as US Core 6.1.0
 * PractitionerRole: one per user and instance (the migration 0053 view over the access grants), its
 * id the user's, as a CareTeam's is its patient's (FHIR ids are per type; each instance is its own
 * FHIR base). `practitioner` is the user, `organization` the instance, `code` the roles. A deleted
 * user holds no roles, so has none. Read with USER_READ, as Practitioner. Mapping: docs/fhir.md.
 */

/** Cairn's CodeSystem of role names: the formation's roles, whose titles are the instance's own. */
export const ROLE_SYSTEM = 'https://cairn.health/fhir/CodeSystem/role';

type RoleRow = Row<'fhir_practitioner_roles'> & {
  user: { email: string; phone: string | null; enabled: boolean } | null;
  titles: Record<string, string> | null;
};

function practitionerRoleOf(row: RoleRow) {
  return {
    resourceType: 'PractitionerRole',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    active: row.user?.enabled ?? false,
    practitioner: reference('Practitioner', row.id),
    organization: reference('Organization', row.instance_id),
    code: row.roles.map((role) => ({
      coding: [{ system: ROLE_SYSTEM, code: role, display: row.titles?.[role] }],
      text: row.titles?.[role] ?? role,
    })),
    // pd-1: telecom or endpoint. The user's email is required, so one is always here.
    telecom: [
      ...(row.user ? [{ system: 'email', value: row.user.email, use: 'work' }] : []),
      ...(row.user?.phone ? [{ system: 'phone', value: row.user.phone, use: 'work' }] : []),
    ],
  };
}

export const fhirPractitionerRole: FhirResource = {
  type: 'PractitionerRole',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitionerrole',
  permission: 'USER_READ',
  table: 'fhir_practitioner_roles',
  instanceScoped: true,
  patient: { none: "a practitioner's roles in the instance: the answer carries no patient's data" },
  logAs: 'PRACTITIONER_ROLE',
  notFound: 'PRACTITIONER_ROLE_NOT_FOUND',
  // The user's contact (the users' key) and the roles' titles from the published formation (its key).
  columns: (tenantId) => [
    sql`(SELECT json_build_object('email', u.email, 'phone', u.phone, 'enabled', u.enabled)
         FROM users u WHERE u.tenant_id = ${tenantId} AND u.id = r.id)`.as('user'),
    sql`(SELECT jsonb_object_agg(role ->> 'name', role ->> 'title')
         FROM formations f JOIN instances i ON i.tenant_id = ${tenantId} AND i.id = r.instance_id
           CROSS JOIN jsonb_array_elements(f.document -> 'roles') role
         WHERE f.tenant_id = ${tenantId} AND f.instance_id = r.instance_id AND f.version = i.current_formation_version
           AND role ->> 'title' IS NOT NULL)`.as('titles'),
  ],
  params: {
    practitioner: referenceParam('Practitioner', 'id'),
    organization: referenceParam('Organization', 'instance_id'),
    specialty: absentParam('specialty', 'token'),
  },
  toFhir: (row: RoleRow) => compact(practitionerRoleOf(row)),
};
