import { type Kysely, type SqlBool, sql } from 'kysely';
import { parameterBatches } from '../../db/batches.ts';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { likeContains } from '../../db/sql.ts';
import type { ReadRecording } from '../../events/access.ts';
import type { Writing } from '../../events/work.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import type { Caller } from '../../tenancy/access.ts';
import { readInstant } from '../../wire/schemas.ts';
import {
  type LookupType,
  lookupColumns,
  type PatientReadRow,
  type PatientRow,
  patientRelations,
  type RelationScope,
} from './read.ts';
import type { CareTeamEntry } from './rules.ts';
import { searchTerms } from './rules.ts';
import type { PatientFilter } from './schemas.ts';

export async function findPatient(
  db: Kysely<DB>,
  where: Scope,
  key: string,
  type: LookupType = 'ID',
  options: { forUpdate?: boolean } = {},
): Promise<PatientRow | undefined> {
  let query = db
    .selectFrom('patients')
    .selectAll()
    .where('tenant_id', '=', where.tenantId)
    .where('instance_id', '=', where.instanceId)
    .where(lookupColumns[type], '=', key);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The ids among `ids` that are not patients of this instance. */
export async function missingPatientIds(db: Kysely<DB>, where: Scope, ids: string[]): Promise<string[]> {
  const found = await db
    .selectFrom('patients')
    .select('id')
    .where('tenant_id', '=', where.tenantId)
    .where('instance_id', '=', where.instanceId)
    .where('id', 'in', ids)
    .execute();
  const present = new Set(found.map((row) => row.id));
  return ids.filter((id) => !present.has(id));
}

function filtered(db: Kysely<DB>, where: Scope, filter: PatientFilter, caller: Caller | undefined) {
  let query = db
    .selectFrom('patients as p')
    .where('p.tenant_id', '=', where.tenantId)
    .where('p.instance_id', '=', where.instanceId);
  const search = filter.search ?? filter.query;
  if (search?.trim()) {
    const terms = searchTerms(search);
    query = query.where((eb) => eb.or(terms.map((term) => eb('p.search_text', 'like', likeContains(term)))));
  }
  if (filter.email) {
    const email = filter.email.toLowerCase();
    query = query.where((eb) =>
      eb.or([eb(eb.fn('lower', ['p.email']), '=', email), eb(eb.fn('lower', ['p.secondary_email']), '=', email)]),
    );
  }
  if (filter.phone) {
    const phone = filter.phone;
    query = query.where((eb) => eb.or([eb('p.phone', '=', phone), eb('p.secondary_phone', '=', phone)]));
  }
  if (filter.mrn) query = query.where('p.mrn', '=', filter.mrn);
  if (filter.externalId) query = query.where('p.external_id', '=', filter.externalId);
  if (filter.timezone) query = query.where('p.timezone', '=', filter.timezone);
  if (filter.ids) query = query.where('p.id', 'in', filter.ids.length > 0 ? filter.ids : [null as never]);
  if (filter.territories && filter.territories.length > 0) {
    query = query.where(sql<SqlBool>`p.territories && ${sql.val(filter.territories)}::text[]`);
  }
  if (filter.region) query = query.where(sql<SqlBool>`p.regions @> ARRAY[${filter.region}]::text[]`);
  if (filter.createdAfter) query = query.where('p.created_at', '>=', readInstant(filter.createdAfter));
  if (filter.createdBefore) query = query.where('p.created_at', '<', readInstant(filter.createdBefore));
  if (filter.updatedAfter) query = query.where('p.updated_at', '>=', readInstant(filter.updatedAfter));
  if (filter.updatedBefore) query = query.where('p.updated_at', '<', readInstant(filter.updatedBefore));
  const memberId = filter.assignedToMe ? (caller?.type === 'USER' ? caller.id : null) : undefined;
  for (const userId of [filter.careTeamMemberId, memberId]) {
    if (userId === undefined) continue;
    query = query.where((eb) =>
      userId === null
        ? eb.val(false)
        : eb.exists(
            eb
              .selectFrom('patient_care_team as ct')
              .select(eb.lit(1).as('one'))
              .where('ct.tenant_id', '=', where.tenantId)
              .whereRef('ct.patient_id', '=', 'p.id')
              .where('ct.user_id', '=', userId),
          ),
    );
  }
  if (filter.withoutCareTeam) {
    query = query.where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('patient_care_team as ct')
            .select(eb.lit(1).as('one'))
            .where('ct.tenant_id', '=', where.tenantId)
            .whereRef('ct.patient_id', '=', 'p.id'),
        ),
      ),
    );
  }
  if (filter.programName) {
    const programName = filter.programName;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('patient_programs as pp')
          .select(eb.lit(1).as('one'))
          .where('pp.tenant_id', '=', where.tenantId)
          .whereRef('pp.patient_id', '=', 'p.id')
          .where('pp.program_name', '=', programName)
          .where('pp.status', '<>', 'FINISHED'),
      ),
    );
  }
  return query;
}

/**
 * A page of patients with their relations, and the total: one statement.
 *
 * The total stays exact: the page object (000) is Spring's Page, whose `totalElements` and
 * `totalPages` count every match, and nothing in the contract allows an estimate or a "more than
 * N". A substring search's count is bound to visit each match's row: the trigram index only
 * proposes candidates (LIKE is always rechecked on the row, and a GIN index has no index-only
 * scan), and the page's own default order (created_at) needs each match's key anyway. So a search
 * costs in proportion to its matches, and a common surname matches in proportion to the tenant
 * (issue 43, measured at 1M patients, warm: "king", 18,564 matches, 46 ms; "hall", 5,988, 17 ms;
 * a full name or a phone, a handful, 3–9 ms; at 10k every term ≤ 9.5 ms). A list narrowed by a
 * care-team member reads that member's ~600 patients at any size (4–8 ms at 10k and 1M).
 */
export async function listPatients(
  db: Kysely<DB>,
  where: RelationScope,
  filter: PatientFilter,
  caller: Caller | undefined,
  paging: Paging,
  sort: SortKey[],
  reading?: ReadRecording,
): Promise<{ rows: PatientReadRow[]; total: number; matches?: string[] }> {
  const list = {
    base: filtered(db, where, filter, caller) as never,
    table: 'patients',
    alias: 'p',
    tenantId: where.tenantId,
    searched: Boolean((filter.search ?? filter.query)?.trim()),
    // Filters that leave a handful of patients (a caseload, an identifier), not a whole region.
    narrowed: Boolean(
      filter.careTeamMemberId ||
        filter.assignedToMe ||
        filter.ids ||
        filter.mrn ||
        filter.externalId ||
        filter.email ||
        filter.phone,
    ),
    extra: patientRelations(where),
    // A total of patients matching a phone, an email or a name tells who they are: the access log names them.
    patientOfMatch: 'p.id',
    reading,
  };
  const order = { keys: sort, fallback: [{ column: 'p.created_at', direction: 'desc' as const }], tieBreaker: 'p.id' };
  return filteredPage<PatientReadRow>(db as Kysely<never>, list, order, paging);
}

/** Replaces the care teams of `patientIds` with `members` (already normalised to one point of contact). */
export async function replaceCareTeams(
  trx: Kysely<DB>,
  tenantId: string,
  patientIds: string[],
  members: CareTeamEntry[],
  at: Date,
): Promise<void> {
  await trx.deleteFrom('patient_care_team').where('tenant_id', '=', tenantId).where('patient_id', 'in', patientIds).execute();
  const rows = careTeamRows(tenantId, patientIds, members, at);
  for (const batch of parameterBatches(rows)) await trx.insertInto('patient_care_team').values(batch).execute();
}

/** The care-team rows of `members` for each patient, in the order given. */
export function careTeamRows(tenantId: string, patientIds: string[], members: CareTeamEntry[], at: Date) {
  return patientIds.flatMap((patientId) =>
    members.map((member, position) => ({
      tenant_id: tenantId,
      patient_id: patientId,
      user_id: member.userId,
      point_of_contact: member.pointOfContact,
      position,
      created_at: at,
    })),
  );
}

/** Adds users at the end of each care team; members already there stay as they are. */
export async function addCareTeamMembers(trx: Kysely<DB>, tenantId: string, patientIds: string[], userIds: string[], at: Date) {
  if (userIds.length === 0) return;
  await sql`
    INSERT INTO patient_care_team (tenant_id, patient_id, user_id, point_of_contact, position, created_at)
    SELECT ${tenantId}::uuid, p.id, u.user_id, false, coalesce(last.position, -1) + u.ordinal, ${at}
    FROM unnest(${sql.val(patientIds)}::uuid[]) AS p(id)
    CROSS JOIN unnest(${sql.val(userIds)}::uuid[]) WITH ORDINALITY AS u(user_id, ordinal)
    LEFT JOIN (
      SELECT patient_id, max(position) AS position FROM patient_care_team
      WHERE tenant_id = ${tenantId} AND patient_id = ANY(${sql.val(patientIds)}::uuid[])
      GROUP BY patient_id
    ) last ON last.patient_id = p.id
    ON CONFLICT (tenant_id, patient_id, user_id) DO NOTHING
  `.execute(trx);
}

/**
 * Swaps `from` for `to` in each care team, keeping the place and the point-of-contact flag.
 * Where `to` is already a member, `from` just leaves, handing over the flag if it held it.
 */
export async function replaceCareTeamMember(trx: Kysely<DB>, tenantId: string, patientIds: string[], from: string, to: string) {
  if (from === to) return;
  const left = await sql<{ patient_id: string; point_of_contact: boolean }>`
    DELETE FROM patient_care_team ct
    WHERE ct.tenant_id = ${tenantId} AND ct.patient_id = ANY(${sql.val(patientIds)}::uuid[]) AND ct.user_id = ${from}
      AND EXISTS (SELECT 1 FROM patient_care_team o WHERE o.tenant_id = ${tenantId} AND o.patient_id = ct.patient_id AND o.user_id = ${to})
    RETURNING ct.patient_id, ct.point_of_contact
  `.execute(trx);
  const handOver = left.rows.filter((row) => row.point_of_contact).map((row) => row.patient_id);
  if (handOver.length > 0) {
    await trx
      .updateTable('patient_care_team')
      .set({ point_of_contact: true })
      .where('tenant_id', '=', tenantId)
      .where('patient_id', 'in', handOver)
      .where('user_id', '=', to)
      .execute();
  }
  await trx
    .updateTable('patient_care_team')
    .set({ user_id: to })
    .where('tenant_id', '=', tenantId)
    .where('patient_id', 'in', patientIds)
    .where('user_id', '=', from)
    .execute();
}

export async function removeCareTeamMembers(trx: Kysely<DB>, tenantId: string, patientIds: string[], userIds: string[]) {
  if (userIds.length === 0) return;
  await trx
    .deleteFrom('patient_care_team')
    .where('tenant_id', '=', tenantId)
    .where('patient_id', 'in', patientIds)
    .where('user_id', 'in', userIds)
    .execute();
}

/** 001: a care team without a point of contact gets its first member as one. */
export async function ensurePointOfContact(trx: Kysely<DB>, tenantId: string, patientIds: string[]) {
  await sql`
    UPDATE patient_care_team ct SET point_of_contact = true
    FROM (
      SELECT DISTINCT ON (c.patient_id) c.patient_id, c.user_id
      FROM patient_care_team c
      WHERE c.tenant_id = ${tenantId} AND c.patient_id = ANY(${sql.val(patientIds)}::uuid[])
        AND NOT EXISTS (
          SELECT 1 FROM patient_care_team poc
          WHERE poc.tenant_id = ${tenantId} AND poc.patient_id = c.patient_id AND poc.point_of_contact
        )
      ORDER BY c.patient_id, c.position
    ) first
    WHERE ct.tenant_id = ${tenantId} AND ct.patient_id = first.patient_id AND ct.user_id = first.user_id
  `.execute(trx);
}

/** The patients changed (their care team did): stamped as updated by the write. */
export function touchPatients(w: Writing, tenantId: string, patientIds: string[]) {
  return w.db.updateTable('patients').set(w.updated()).where('tenant_id', '=', tenantId).where('id', 'in', patientIds).execute();
}

/** A patient as a picker lists it: enough to tell two apart, nothing more. */
export interface PickedPatient {
  id: string;
  firstName: string | null;
  lastName: string | null;
  birthDate: string | null;
}

/**
 * Patients of an instance to choose from (an app's standalone launch, modules/apps): those a search
 * finds (the trigram index on search_text), or without one the newest (the created_at index); at
 * most `limit`, so the page stays short and the rest is found by searching.
 */
export async function pickPatients(db: Kysely<DB>, where: Scope, search: string, limit: number): Promise<PickedPatient[]> {
  const rows = await filtered(db, where, { search }, undefined)
    .select(['p.id', 'p.first_name', 'p.last_name', sql<string | null>`to_char(p.birth_date, 'YYYY-MM-DD')`.as('birth_date')])
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.id, firstName: row.first_name, lastName: row.last_name, birthDate: row.birth_date }));
}
