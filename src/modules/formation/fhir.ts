import { type SqlBool, sql } from 'kysely';
import type { Static } from 'typebox';
import type { Row } from '../../db/schema.ts';
import type { InstancePhone } from '../../formation/schemas.ts';
import {
  absentParam,
  compact,
  type FhirParam,
  type FhirResource,
  nothing,
  reference,
  stringParam,
  tokenOf,
} from '../../http/fhir.ts';

/**
 * The tenant and its instance as FHIR R4 Organizations, profiled as US Core 6.1.0 Organization: the
 * instance is the care organization (`Organization/{instanceId}`, what an Encounter's
 * `serviceProvider` names), part of its tenant's (`Organization/{tenantId}`). One FHIR type from
 * two sources (the migration 0053 views over `tenants` and `instances`): an instance's FHIR base
 * serves its own instance's Organization and its tenant's, never another instance's, which is
 * another FHIR server's. Each field's mapping is in docs/fhir.md.
 *
 * Read with FORMATION_READ: the instance's configuration (its phones are the formation's), held by
 * every role that works in the instance; no patient's data.
 */

export const TENANT_ID_SYSTEM = 'https://cairn.health/fhir/sid/tenant-id';
export const TENANT_NAME_SYSTEM = 'https://cairn.health/fhir/sid/tenant-name';
export const INSTANCE_ID_SYSTEM = 'https://cairn.health/fhir/sid/instance-id';
export const INSTANCE_NAME_SYSTEM = 'https://cairn.health/fhir/sid/instance-name';

const PROFILE = 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-organization';
const NO_PATIENT = 'an organization is the tenant or its instance: the answer carries no patient data';

type TenantRow = Row<'fhir_tenant_organizations'>;
type InstanceRow = Row<'fhir_instance_organizations'>;
type Phone = Static<typeof InstancePhone>;

/** A phone that only faxes is a fax number; any other (every channel when none is said) a phone. */
function telecomOf(phone: Phone) {
  const channels = phone.capabilities ?? ['SMS', 'VOICE_CALL', 'FAX'];
  const faxOnly = channels.includes('FAX') && !channels.some((c) => c === 'SMS' || c === 'VOICE_CALL');
  return { system: faxOnly ? 'fax' : 'phone', value: phone.number, use: 'work', rank: phone.default ? 1 : undefined };
}

/** `system|value` or `value` against the resource's id and name identifiers. */
function identifierParam(idSystem: string, nameSystem: string): FhirParam {
  return {
    type: 'token',
    where: (token) => {
      const { system, code } = tokenOf(token);
      const byId = system === undefined || system === idSystem;
      const byName = system === undefined || system === nameSystem;
      const conditions = [
        ...(byId ? [sql<SqlBool>`r.id::text = ${code.toLowerCase()}`] : []),
        ...(byName ? [sql<SqlBool>`r.name = ${code}`] : []),
      ];
      return conditions.length === 0 ? nothing : sql<SqlBool>`(${sql.join(conditions, sql` OR `)})`;
    },
  };
}

export const fhirTenantOrganization: FhirResource = {
  type: 'Organization',
  profile: PROFILE,
  permission: 'FORMATION_READ',
  table: 'fhir_tenant_organizations',
  instanceScoped: false,
  patient: { none: NO_PATIENT },
  logAs: 'ORGANIZATION',
  notFound: 'ORGANIZATION_NOT_FOUND',
  params: {
    // Its title, or its name (the URL's), as R4's `name` reads name and alias.
    name: stringParam('name', 'title', 'name'),
    address: absentParam('address', 'string'),
    identifier: identifierParam(TENANT_ID_SYSTEM, TENANT_NAME_SYSTEM),
  },
  toFhir: (row: TenantRow) =>
    compact({
      resourceType: 'Organization',
      id: row.id,
      meta: { lastUpdated: row.updated_at.toISOString() },
      identifier: [
        { use: 'usual', system: TENANT_ID_SYSTEM, value: row.id },
        { use: 'secondary', system: TENANT_NAME_SYSTEM, value: row.name },
      ],
      active: true,
      name: row.title || row.name,
      alias: row.title && row.title !== row.name ? [row.name] : [],
    }),
};

export const fhirInstanceOrganization: FhirResource = {
  type: 'Organization',
  profile: PROFILE,
  permission: 'FORMATION_READ',
  table: 'fhir_instance_organizations',
  instanceScoped: true,
  patient: { none: NO_PATIENT },
  logAs: 'ORGANIZATION',
  notFound: 'ORGANIZATION_NOT_FOUND',
  params: {
    name: stringParam('name', 'name'),
    address: absentParam('address', 'string'),
    identifier: identifierParam(INSTANCE_ID_SYSTEM, INSTANCE_NAME_SYSTEM),
  },
  toFhir: (row: InstanceRow) =>
    compact({
      resourceType: 'Organization',
      id: row.id,
      meta: { lastUpdated: row.updated_at.toISOString() },
      identifier: [
        { use: 'usual', system: INSTANCE_ID_SYSTEM, value: row.id },
        { use: 'secondary', system: INSTANCE_NAME_SYSTEM, value: row.name },
      ],
      active: true,
      name: row.name,
      telecom: (row.phones ?? []).map(telecomOf),
      partOf: reference('Organization', row.tenant_id),
    }),
};
