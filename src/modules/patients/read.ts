import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { PREPARED } from '../../db/sql.ts';
import { type ReadRecording, shownRecord } from '../../events/access.ts';

export type PatientRow = Row<'patients'>;

export type LookupType = 'ID' | 'EID' | 'EGUID' | 'MRN';

export const lookupColumns = { ID: 'id', EID: 'external_id', EGUID: 'external_guid', MRN: 'mrn' } as const;

/**
 * A patient as every read loads it: the row and, composed into the same statement as JSON
 * columns, its care team, its territorial team and its shown enrolments, so a read (one patient
 * or a page of them) is one round trip. Correlated subqueries per row of a page: each runs on an
 * index (care team by patient, user territories by the GIN index per region, enrolments by
 * patient), and a page holds at most 1000 rows.
 */

export interface RoleGrant {
  name: string;
  primary_role: boolean;
}

interface UserSummary {
  id: string;
  username: string;
  first_name: string | null;
  last_name: string | null;
  email: string;
  enabled: boolean;
  roles: RoleGrant[];
}

export interface CareTeamMember extends UserSummary {
  point_of_contact: boolean;
}

export interface TerritoryUser extends UserSummary {
  territories: { name: string; territories: string[]; instanceName: string }[];
}

/** An enrolment as JSON: its timestamps are text (turned back into Dates by the view). */
export interface EnrolmentJson {
  id: string;
  program_name: string;
  status: string;
  created_at: string;
  updated_at: string;
  created_by_name: string | null;
  updated_by_name: string | null;
  patient_id: string;
  current_phase: unknown;
  path_history: unknown[];
}

export type PatientReadRow = PatientRow & {
  care_team: CareTeamMember[];
  territorial_team: TerritoryUser[];
  enrolments: EnrolmentJson[];
};

/** Where the relations are read: the instance (roles, enrolments) and its name (user territories name it). */
export interface RelationScope extends Scope {
  instanceName: string;
}

/** The roles a user (`u`) holds in the instance, as a JSON array. */
function rolesOf(scope: Scope): RawBuilder<unknown> {
  return sql`(SELECT coalesce(json_agg(json_build_object('name', g.name, 'primary_role', g.primary_role) ORDER BY g.name), '[]')
    FROM access_grants g
    WHERE g.tenant_id = ${scope.tenantId} AND g.principal_id = u.id AND g.instance_id = ${scope.instanceId} AND g.grant_type = 'SECURITY_ROLE')`;
}

/**
 * The relation columns of the patient row aliased `alias`. A statement that writes the care team
 * reads it from its own CTE (`careTeamFrom`): a statement does not see the rows it inserts. Every
 * table names the tenant as a parameter, not through the patient's column: on Citus a sub-query
 * that only joins on tenant columns is refused or sent to every shard.
 */
export function patientRelations(scope: RelationScope, alias = 'p', careTeamFrom = 'patient_care_team'): RawBuilder<unknown>[] {
  const p = sql.raw(alias);
  const tenant = scope.tenantId;
  return [
    sql`(SELECT coalesce(json_agg(m ORDER BY m.position), '[]') FROM (
        SELECT ct.position, ct.point_of_contact, u.id, u.username, u.first_name, u.last_name, u.email, u.enabled,
          ${rolesOf(scope)} AS roles
        FROM ${sql.raw(careTeamFrom)} ct JOIN users u ON u.tenant_id = ${tenant} AND u.id = ct.user_id
        WHERE ct.tenant_id = ${tenant} AND ct.patient_id = ${p}.id) m) AS care_team`,
    // Users whose territory entries in this instance name a region of the patient; which of them
    // cover the patient's territories is decided in the view.
    sql`(SELECT coalesce(json_agg(t ORDER BY t.username, t.id), '[]') FROM (
        SELECT DISTINCT ON (u.id) u.id, u.username, u.first_name, u.last_name, u.email, u.enabled, ut.territories,
          ${rolesOf(scope)} AS roles
        FROM user_regions ur
        JOIN user_territories ut ON ut.tenant_id = ${tenant} AND ut.user_id = ur.user_id
        JOIN users u ON u.tenant_id = ${tenant} AND u.id = ut.user_id AND u.deleted_at IS NULL
        WHERE ur.tenant_id = ${tenant} AND ur.instance_name = ${scope.instanceName}::text AND ur.region = ANY(${p}.regions)
        ORDER BY u.id) t) AS territorial_team`,
    // Per program: the running enrolment, else the latest finished one.
    sql`(SELECT coalesce(json_agg(e ORDER BY e.program_name), '[]') FROM (
        SELECT DISTINCT ON (pp.program_name) pp.id, pp.program_name, pp.status, pp.created_at, pp.updated_at,
          pp.created_by_name, pp.updated_by_name, pp.patient_id, pp.current_phase, pp.path_history
        FROM patient_programs pp
        WHERE pp.tenant_id = ${tenant} AND pp.patient_id = ${p}.id AND pp.instance_id = ${scope.instanceId}
        ORDER BY pp.program_name, pp.status = 'FINISHED', pp.created_at DESC, pp.id DESC) e) AS enrolments`,
  ];
}

/**
 * One patient with its relations, by id, externalId, externalGuid or MRN: one statement, which
 * also writes the answer's access record when given the request's (`reading`).
 */
export async function readPatient(
  db: Kysely<DB>,
  scope: RelationScope,
  key: string,
  type: LookupType = 'ID',
  reading?: ReadRecording,
): Promise<PatientReadRow | undefined> {
  const read = sql`SELECT p.*, ${sql.join(patientRelations(scope))} FROM patients p
    WHERE p.tenant_id = ${scope.tenantId} AND p.instance_id = ${scope.instanceId} AND p.${sql.raw(lookupColumns[type])} = ${key}`;
  const statement = reading
    ? sql`WITH answer AS (${read}), recorded AS (${shownRecord(reading, { patients: sql`ARRAY(SELECT id FROM answer)` })})
      SELECT * FROM answer`
    : read;
  const { rows } = await sql<PatientReadRow>`${sql.raw(PREPARED)} ${statement}`.execute(db);
  if (reading && rows[0]) reading.record.recorded.add(rows[0].id);
  return rows[0];
}

/** Patients with their relations, in the order of `ids`: one statement. */
export async function readPatients(db: Kysely<DB>, scope: RelationScope, ids: readonly string[]): Promise<PatientReadRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<PatientReadRow>`${sql.raw(PREPARED)}
    SELECT p.*, ${sql.join(patientRelations(scope))} FROM patients p
    WHERE p.tenant_id = ${scope.tenantId} AND p.instance_id = ${scope.instanceId} AND p.id = ANY(${sql.val(ids)}::uuid[])
  `.execute(db);
  const order = new Map(ids.map((id, index) => [id, index]));
  return rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}
