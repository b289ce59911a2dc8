import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  compact,
  type FhirParam,
  type FhirResource,
  invalidParam,
  isUuid,
  nothing,
  reference,
  referencedId,
  referenceParam,
  tokenOf,
} from '../../http/fhir.ts';

/**
 * A patient's care team as a FHIR R4 CareTeam, profiled as US Core 6.1.0 CareTeam: one per patient,
 * its id the patient's, its members composed into the same statement. Every patient has one: a
 * team with members is `active`; one without is `inactive` and lists the patient alone, since US
 * Core needs a participant (a resource's conditions cannot name the tenant as a parameter, so "only
 * patients with a team" is not a condition it can have: docs/fhir.md). Mapping in docs/fhir.md.
 */

/** NUCC's "Case Manager/Care Coordinator": what a member of a Cairn care team is; Cairn keeps no discipline. */
const CARE_COORDINATOR = {
  system: 'http://nucc.org/provider-taxonomy',
  code: '171M00000X',
  display: 'Case Manager/Care Coordinator',
};
/** The patient in their own team, as US Core's example lists them. */
const PATIENT_ROLE = { system: 'http://snomed.info/sct', code: '116154003', display: 'Patient (person)' };

const STATUSES = ['proposed', 'active', 'suspended', 'inactive', 'entered-in-error'];

interface Member {
  userId: string;
  pointOfContact: boolean;
}

type CareTeamRow = Row<'patients'> & { care_team: Member[] };

function careTeamOf(row: CareTeamRow) {
  return {
    resourceType: 'CareTeam',
    id: row.id,
    // A change to the team stamps the patient (touchPatients), so this is the team's too.
    meta: { lastUpdated: row.updated_at.toISOString() },
    status: row.care_team.length > 0 ? 'active' : 'inactive',
    subject: reference('Patient', row.id),
    participant: [
      ...row.care_team.map((member) => ({
        role: [
          {
            coding: [CARE_COORDINATOR],
            // 001: one point of contact per team; FHIR has no flag for it, so its role's text says so.
            text: member.pointOfContact ? 'Care coordinator, point of contact' : 'Care coordinator',
          },
        ],
        member: reference('Practitioner', member.userId),
      })),
      { role: [{ coding: [PATIENT_ROLE] }], member: reference('Patient', row.id) },
    ],
  };
}

/** A team with members (the care team's key, tenant and patient, finds them). */
const hasMembers = (tenantId: string) =>
  sql<SqlBool>`EXISTS (SELECT 1 FROM patient_care_team ct WHERE ct.tenant_id = ${tenantId} AND ct.patient_id = r.id)`;

/** `status`: `active` a team with members, `inactive` one without; the other codes none. */
const statusParam: FhirParam = {
  type: 'token',
  where: (token, tenantId) => {
    const { code } = tokenOf(token);
    if (!STATUSES.includes(code)) throw invalidParam('status', `must be one of ${STATUSES.join(', ')}`);
    if (code === 'active') return hasMembers(tenantId);
    if (code === 'inactive') return sql<SqlBool>`NOT ${hasMembers(tenantId)}`;
    return nothing;
  },
};

/**
 * `participant`: a member (`Practitioner/{userId}`, on the care team's user index) or the patient
 * (`Patient/{id}`); what `_include=CareTeam:participant` adds, as US Core asks.
 */
const participantParam: FhirParam = {
  type: 'reference',
  where: (value, tenantId) => {
    const patient = referencedId('Patient', value);
    if (value.startsWith('Patient/')) return isUuid(patient) ? sql<SqlBool>`r.id = ${patient}` : nothing;
    const user = referencedId('Practitioner', value);
    if (!isUuid(user)) return nothing;
    return sql<SqlBool>`EXISTS (SELECT 1 FROM patient_care_team ct
      WHERE ct.tenant_id = ${tenantId} AND ct.user_id = ${user} AND ct.patient_id = r.id)`;
  },
  includes: {
    targets: ['Practitioner', 'Patient'],
    refersTo: (row: CareTeamRow) => [
      ...row.care_team.map((member) => ({ type: 'Practitioner', id: member.userId })),
      { type: 'Patient', id: row.id },
    ],
  },
};

/**
 * `role`: a participant's role, as the resource shows them: NUCC's care coordinator a team with
 * members, SNOMED CT's patient every team (the patient is always listed); any other code none.
 */
const roleParam: FhirParam = {
  type: 'token',
  where: (token, tenantId) => {
    const { system, code } = tokenOf(token);
    const is = (role: { system: string; code: string }) => code === role.code && (system === undefined || system === role.system);
    if (is(CARE_COORDINATOR)) return hasMembers(tenantId);
    if (is(PATIENT_ROLE)) return sql<SqlBool>`true`;
    return nothing;
  },
};

/** CareTeam: a patient's care team, read as the patient is (PATIENT_READ), by the patient's id. */
export const fhirCareTeam: FhirResource = {
  type: 'CareTeam',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-careteam',
  permission: 'PATIENT_READ',
  table: 'patients',
  instanceScoped: true,
  patient: { column: 'id' },
  logAs: 'CARE_TEAM',
  notFound: 'PATIENT_NOT_FOUND',
  columns: (tenantId) => [
    sql`(SELECT coalesce(json_agg(json_build_object('userId', ct.user_id, 'pointOfContact', ct.point_of_contact)
          ORDER BY ct.position, ct.user_id), '[]')
         FROM patient_care_team ct WHERE ct.tenant_id = ${tenantId} AND ct.patient_id = r.id)`.as('care_team'),
  ],
  params: {
    patient: referenceParam('Patient', 'id'),
    subject: referenceParam('Patient', 'id'),
    status: statusParam,
    participant: participantParam,
    role: roleParam,
  },
  toFhir: (row: CareTeamRow) => compact(careTeamOf(row)),
};
