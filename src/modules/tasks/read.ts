import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { PREPARED } from '../../db/sql.ts';

export type TaskRow = Row<'tasks'>;

/**
 * A task as every read loads it: the row and, composed into the same statement as JSON columns,
 * its assignee, its patient, its watchers and its comments with their authors as they are now, so
 * a read (one task or a page) is one round trip, as for patients (see patients/read.ts).
 */

export interface UserName {
  id: string;
  username: string;
  first_name: string | null;
  last_name: string | null;
  enabled: boolean;
}

export interface PatientName {
  id: string;
  first_name: string;
  last_name: string;
}

/** A comment as JSON (its time is text), with its author as it is now. */
export interface CommentJson {
  id: string;
  created_at: string;
  text: string;
  author_type: string;
  author_id: string | null;
  author_name: string | null;
  author_user: UserName | null;
  author_patient: PatientName | null;
  author_client_enabled: boolean | null;
}

export type TaskReadRow = TaskRow & {
  assignee: UserName | null;
  patient: PatientName | null;
  watchers: UserName[];
  comments: CommentJson[];
};

const userJson = (alias: string) =>
  sql.raw(
    `json_build_object('id', ${alias}.id, 'username', ${alias}.username, 'first_name', ${alias}.first_name, 'last_name', ${alias}.last_name, 'enabled', ${alias}.enabled)`,
  );

/**
 * The relation columns of the task row aliased `alias`. Each table names the tenant as a parameter
 * (a sub-query joined only on tenant columns is refused or sent to every shard on Citus).
 */
export function taskRelations(tenantId: string, alias = 't'): RawBuilder<unknown>[] {
  const t = sql.raw(alias);
  return [
    sql`(SELECT ${userJson('u')} FROM users u WHERE u.tenant_id = ${tenantId} AND u.id = ${t}.assignee_id) AS assignee`,
    sql`(SELECT json_build_object('id', p.id, 'first_name', p.first_name, 'last_name', p.last_name)
      FROM patients p WHERE p.tenant_id = ${tenantId} AND p.id = ${t}.patient_id) AS patient`,
    sql`(SELECT coalesce(json_agg(${userJson('u')} ORDER BY w.created_at, u.id), '[]')
      FROM task_watchers w JOIN users u ON u.tenant_id = ${tenantId} AND u.id = w.user_id
      WHERE w.tenant_id = ${tenantId} AND w.task_id = ${t}.id) AS watchers`,
    sql`(SELECT coalesce(json_agg(json_build_object(
        'id', c.id, 'created_at', c.created_at, 'text', c.text,
        'author_type', c.author_type, 'author_id', c.author_id, 'author_name', c.author_name,
        'author_user', (SELECT ${userJson('u')} FROM users u
          WHERE c.author_type = 'USER' AND u.tenant_id = ${tenantId} AND u.id = c.author_id),
        'author_patient', (SELECT json_build_object('id', p.id, 'first_name', p.first_name, 'last_name', p.last_name)
          FROM patients p WHERE c.author_type = 'PATIENT' AND p.tenant_id = ${tenantId} AND p.id = c.author_id),
        'author_client_enabled', (SELECT a.enabled FROM api_clients a
          WHERE c.author_type = 'API_CLIENT' AND a.tenant_id = ${tenantId} AND a.id = c.author_id)
      ) ORDER BY c.created_at, c.id), '[]')
      FROM task_comments c WHERE c.tenant_id = ${tenantId} AND c.task_id = ${t}.id) AS comments`,
  ];
}

/** Tasks with their relations, in the order of `ids`: one statement. */
export async function readTasks(db: Kysely<DB>, scope: Scope, ids: readonly string[]): Promise<TaskReadRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<TaskReadRow>`${sql.raw(PREPARED)}
    SELECT t.*, ${sql.join(taskRelations(scope.tenantId))} FROM tasks t
    WHERE t.tenant_id = ${scope.tenantId} AND t.instance_id = ${scope.instanceId} AND t.id = ANY(${sql.val(ids)}::uuid[])
  `.execute(db);
  const order = new Map(ids.map((id, index) => [id, index]));
  return rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** The tasks of a goal with their relations, oldest first (tasks_goal_idx): one statement. */
export async function readGoalTasks(db: Kysely<DB>, tenantId: string, goalId: string): Promise<TaskReadRow[]> {
  const { rows } = await sql<TaskReadRow>`${sql.raw(PREPARED)}
    SELECT t.*, ${sql.join(taskRelations(tenantId))} FROM tasks t
    WHERE t.tenant_id = ${tenantId} AND t.goal_id = ${goalId}
    ORDER BY t.created_at, t.id
  `.execute(db);
  return rows;
}
