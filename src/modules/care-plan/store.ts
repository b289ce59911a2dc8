import { type Kysely, sql } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { PREPARED } from '../../db/sql.ts';
import type { Writing } from '../../events/work.ts';
import { offsetOf, type Paging } from '../../http/pagination.ts';
import { type TaskReadRow, taskRelations } from '../tasks/index.ts';

export type CarePlanRow = Row<'care_plans'>;
export type GoalRow = Row<'goals'>;
export type GoalCommentRow = Row<'goal_comments'>;

/** A patient's care plan, made on first access (DECISIONS §7); `created` says whether this call made it. */
export async function ensureCarePlan(
  w: Writing,
  { tenantId, instanceId }: Scope,
  patientId: string,
): Promise<{ row: CarePlanRow; created: boolean }> {
  const made = await w.db
    .insertInto('care_plans')
    .values({
      tenant_id: tenantId,
      instance_id: instanceId,
      patient_id: patientId,
      id: uuidv7(),
      ...w.created(),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'patient_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (made) return { row: made, created: true };
  const row = await w.db
    .selectFrom('care_plans')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('patient_id', '=', patientId)
    .executeTakeFirstOrThrow();
  return { row, created: false };
}

/** Sets the overview, making the care plan if need be; the overview keeps who first wrote it. */
export async function upsertOverview(
  w: Writing,
  { tenantId, instanceId }: Scope,
  patientId: string,
  overview: string | null,
): Promise<CarePlanRow> {
  const { now, actor } = w;
  return w.db
    .insertInto('care_plans')
    .values({
      tenant_id: tenantId,
      instance_id: instanceId,
      patient_id: patientId,
      id: uuidv7(),
      overview,
      overview_created_at: now,
      overview_created_by_name: actor.name,
      overview_updated_at: now,
      overview_updated_by_name: actor.name,
      ...w.created(),
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'patient_id']).doUpdateSet({
        overview,
        overview_created_at: sql`coalesce(care_plans.overview_created_at, excluded.overview_created_at)`,
        overview_created_by_name: sql`CASE WHEN care_plans.overview_created_at IS NULL THEN excluded.overview_created_by_name ELSE care_plans.overview_created_by_name END`,
        overview_updated_at: now,
        overview_updated_by_name: actor.name,
        ...w.updated(),
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The care plan moves on (its updated stamp) when its goals change, so the export (ordered by the
 * care plan's update time) meets the change. The plan must exist (ensureCarePlan).
 */
export async function touchCarePlan(w: Writing, { tenantId }: Scope, patientId: string): Promise<void> {
  await w.db
    .updateTable('care_plans')
    .set(w.updated())
    .where('tenant_id', '=', tenantId)
    .where('patient_id', '=', patientId)
    .execute();
}

/** A patient's goals, oldest first; goals_patient_idx serves the status filter. */
export async function listGoals(
  db: Kysely<DB>,
  tenantId: string,
  patientId: string,
  statuses: string[],
  paging: Paging,
): Promise<{ rows: GoalRow[]; total: number }> {
  const base = db
    .selectFrom('goals')
    .where('tenant_id', '=', tenantId)
    .where('patient_id', '=', patientId)
    .where('status', 'in', statuses);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at').orderBy('id').limit(paging.size).offset(offsetOf(paging)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export async function findGoal(
  db: Kysely<DB>,
  tenantId: string,
  patientId: string,
  goalId: string,
  options: { forUpdate?: boolean } = {},
): Promise<GoalRow | undefined> {
  let query = db
    .selectFrom('goals')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', goalId)
    .where('patient_id', '=', patientId);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function commentsOfGoal(db: Kysely<DB>, tenantId: string, goalId: string): Promise<GoalCommentRow[]> {
  return db
    .selectFrom('goal_comments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('goal_id', '=', goalId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The goals of these patients, every status, oldest first: one statement (goals_patient_idx). */
export async function goalsOfPatients(db: Kysely<DB>, tenantId: string, patientIds: readonly string[]): Promise<GoalRow[]> {
  if (patientIds.length === 0) return [];
  return db
    .selectFrom('goals')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('patient_id', '=', sql<string>`ANY(${sql.val(patientIds)}::uuid[])`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The tasks of these goals with their relations (tasks' own read), oldest first: one statement (tasks_goal_idx). */
export async function tasksOfGoals(db: Kysely<DB>, tenantId: string, goalIds: readonly string[]): Promise<TaskReadRow[]> {
  if (goalIds.length === 0) return [];
  const { rows } = await sql<TaskReadRow>`${sql.raw(PREPARED)}
    SELECT t.*, ${sql.join(taskRelations(tenantId, 't'))} FROM tasks t
    WHERE t.tenant_id = ${tenantId} AND t.goal_id = ANY(${sql.val(goalIds)}::uuid[])
    ORDER BY t.created_at, t.id
  `.execute(db);
  return rows;
}

/** The comments of these goals, oldest first: one statement (goal_comments_goal_idx). */
export async function commentsOfGoals(db: Kysely<DB>, tenantId: string, goalIds: readonly string[]): Promise<GoalCommentRow[]> {
  if (goalIds.length === 0) return [];
  return db
    .selectFrom('goal_comments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('goal_id', '=', sql<string>`ANY(${sql.val(goalIds)}::uuid[])`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * For each role, the first member of the patient's care team (by position) who holds it in
 * this instance now; grants outside their effective window do not count.
 */
export async function careTeamRoleHolders(
  db: Kysely<DB>,
  tenantId: string,
  instanceId: string,
  patientId: string,
  roleNames: string[],
): Promise<Map<string, string>> {
  if (roleNames.length === 0) return new Map();
  const rows = await db
    .selectFrom('patient_care_team as ct')
    .innerJoin('access_grants as g', (join) => join.on('g.tenant_id', '=', tenantId).onRef('g.principal_id', '=', 'ct.user_id'))
    .innerJoin('users as u', (join) => join.on('u.tenant_id', '=', tenantId).onRef('u.id', '=', 'ct.user_id'))
    .select(['g.name', 'ct.user_id'])
    .where('ct.tenant_id', '=', tenantId)
    .where('ct.patient_id', '=', patientId)
    .where('g.instance_id', '=', instanceId)
    .where('g.principal_type', '=', 'USER')
    .where('g.grant_type', '=', 'SECURITY_ROLE')
    .where('g.name', 'in', roleNames)
    .where('u.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('g.effective_date', 'is', null), eb('g.effective_date', '<=', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('g.expiration_date', 'is', null), eb('g.expiration_date', '>', sql<Date>`now()`)]))
    .orderBy('ct.position')
    .execute();
  const holders = new Map<string, string>();
  for (const row of rows) if (!holders.has(row.name)) holders.set(row.name, row.user_id);
  return holders;
}

export async function pointOfContactOf(db: Kysely<DB>, tenantId: string, patientId: string): Promise<string | null> {
  const row = await db
    .selectFrom('patient_care_team')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .where('patient_id', '=', patientId)
    .where('point_of_contact', '=', true)
    .executeTakeFirst();
  return row?.user_id ?? null;
}
