import { type Expression, type InsertObject, type Kysely, type SqlBool, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { likeContains } from '../../db/sql.ts';
import type { Writing } from '../../events/work.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import { readInstant } from '../../wire/schemas.ts';
import { type TaskReadRow, type TaskRow, taskRelations } from './read.ts';

export type TaskCommentRow = Row<'task_comments'>;

/** Sort keys: API name → SQL, each served by an index of migration 0003; priority sorts by urgency. */
export const sortableTaskFields: Record<string, string> = {
  name: 't.name',
  dueDate: 't.due_date',
  status: 't.status',
  priority: 't.priority_rank',
  createdAt: 't.created_at',
  updatedAt: 't.updated_at',
};

/** LOW 1 … URGENT 4, stored beside the name so priority sorts by urgency. */
export const priorityRank: Record<string, number> = { LOW: 1, MEDIUM: 2, HIGH: 3, URGENT: 4 };

/** The substring-search column: kept in SQL so the pattern is lower-cased by the same rules. */
export function searchTextOf(name: string, description: string | null): Expression<string> {
  return sql<string>`lower(${name}::text || chr(10) || coalesce(${description}::text, ''))`;
}

export async function findTask(
  db: Kysely<DB>,
  where: Scope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<TaskRow | undefined> {
  let query = db
    .selectFrom('tasks')
    .selectAll()
    .where('tenant_id', '=', where.tenantId)
    .where('instance_id', '=', where.instanceId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function insertTasks(trx: Kysely<DB>, rows: InsertObject<DB, 'tasks'>[]): Promise<TaskRow[]> {
  if (rows.length === 0) return [];
  return trx.insertInto('tasks').values(rows).returningAll().execute();
}

/** Adds watchers; those already watching stay as they are. Answers the user ids actually added. */
export async function addWatchers(
  trx: Kysely<DB>,
  tenantId: string,
  taskId: string,
  userIds: string[],
  at: Date,
): Promise<string[]> {
  if (userIds.length === 0) return [];
  const added = await trx
    .insertInto('task_watchers')
    .values(userIds.map((userId) => ({ tenant_id: tenantId, task_id: taskId, user_id: userId, created_at: at })))
    .onConflict((oc) => oc.columns(['tenant_id', 'task_id', 'user_id']).doNothing())
    .returning('user_id')
    .execute();
  return added.map((row) => row.user_id);
}

/** Makes `userIds` the watchers of a task, keeping the ones already there (and their order). */
export async function replaceWatchers(trx: Kysely<DB>, tenantId: string, taskId: string, userIds: string[], at: Date) {
  let removal = trx.deleteFrom('task_watchers').where('tenant_id', '=', tenantId).where('task_id', '=', taskId);
  if (userIds.length > 0) removal = removal.where('user_id', 'not in', userIds);
  await removal.execute();
  await addWatchers(trx, tenantId, taskId, userIds, at);
}

export async function removeWatcher(trx: Kysely<DB>, tenantId: string, taskId: string, userId: string): Promise<boolean> {
  const result = await trx
    .deleteFrom('task_watchers')
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function removeComment(trx: Kysely<DB>, tenantId: string, taskId: string, commentId: string): Promise<boolean> {
  const result = await trx
    .deleteFrom('task_comments')
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('id', '=', commentId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A change to a task's watchers or comments is a change to the task: it moves updatedAt. */
/** The task changed (its watchers or comments did): stamped as updated by the write. */
export async function touchTask(w: Writing, tenantId: string, taskId: string) {
  await w.db.updateTable('tasks').set(w.updated()).where('tenant_id', '=', tenantId).where('id', '=', taskId).execute();
}

/** The filter of GET /tasks, after the deprecated singular names are merged into the lists. */
export interface TaskFilter {
  templates?: string[];
  withoutTemplate?: boolean;
  assigneeIds?: string[];
  patientIds?: string[];
  statuses?: string[];
  priorities?: string[];
  dueBefore?: string | Date;
  dueAfter?: string | Date;
  /** [start, end) of the UTC day `dueDate` names. */
  dueDay?: [Date, Date];
  authorId?: string;
  watcherId?: string;
  search?: string;
  description?: string;
  /** 001: a user caller with no filter sees the tasks it is assignee or watcher of. */
  assigneeOrWatcher?: string;
}

/** Ids of the tasks a user watches, as a set the planner can drive from task_watchers_user_idx. */
function watchedBy(where: Scope, userId: string) {
  return sql<SqlBool>`t.id IN (SELECT w.task_id FROM task_watchers w WHERE w.tenant_id = ${where.tenantId} AND w.user_id = ${userId})`;
}

/** Assigned or watched: a union of two small index lookups rather than a filter over every task. */
function assignedToOrWatchedBy(where: Scope, userId: string) {
  return sql<SqlBool>`t.id IN (
    SELECT a.id FROM tasks a WHERE a.tenant_id = ${where.tenantId} AND a.instance_id = ${where.instanceId} AND a.assignee_id = ${userId}
    UNION ALL
    SELECT w.task_id FROM task_watchers w WHERE w.tenant_id = ${where.tenantId} AND w.user_id = ${userId}
  )`;
}

function filtered(db: Kysely<DB>, where: Scope, filter: TaskFilter) {
  let query = db.selectFrom('tasks as t').where('t.tenant_id', '=', where.tenantId).where('t.instance_id', '=', where.instanceId);
  const templates = filter.templates ?? [];
  if (templates.length > 0 || filter.withoutTemplate) {
    query = query.where((eb) =>
      eb.or([
        ...(templates.length > 0 ? [eb('t.template_name', 'in', templates)] : []),
        ...(filter.withoutTemplate ? [eb('t.template_name', 'is', null)] : []),
      ]),
    );
  }
  // Lists as one array parameter: the statement's text, and so its prepared plan, is the same
  // whatever the number of values.
  if (filter.assigneeIds?.length) query = query.where(sql<SqlBool>`t.assignee_id = ANY(${sql.val(filter.assigneeIds)}::uuid[])`);
  if (filter.patientIds?.length) query = query.where(sql<SqlBool>`t.patient_id = ANY(${sql.val(filter.patientIds)}::uuid[])`);
  if (filter.statuses?.length) query = query.where(sql<SqlBool>`t.status = ANY(${sql.val(filter.statuses)}::text[])`);
  if (filter.priorities?.length) {
    const ranks = filter.priorities.map((priority) => priorityRank[priority] ?? 0);
    query = query.where(sql<SqlBool>`t.priority_rank = ANY(${sql.val(ranks)}::int[])`);
  }
  if (filter.dueBefore) query = query.where('t.due_date', '<', readInstant(filter.dueBefore));
  if (filter.dueAfter) query = query.where('t.due_date', '>', readInstant(filter.dueAfter));
  if (filter.dueDay) query = query.where('t.due_date', '>=', filter.dueDay[0]).where('t.due_date', '<', filter.dueDay[1]);
  if (filter.authorId) query = query.where('t.created_by', '=', filter.authorId);
  if (filter.watcherId) query = query.where(watchedBy(where, filter.watcherId));
  if (filter.search) query = query.where(sql<SqlBool>`t.search_text LIKE lower(${likeContains(filter.search)})`);
  if (filter.description) {
    // A description match is also a search_text match, so its trigram index finds the candidates.
    const pattern = likeContains(filter.description.toLowerCase());
    query = query.where(sql<SqlBool>`t.search_text LIKE ${pattern} AND lower(t.description) LIKE ${pattern}`);
  }
  if (filter.assigneeOrWatcher) query = query.where(assignedToOrWatchedBy(where, filter.assigneeOrWatcher));
  return query;
}

export async function listTasks(
  db: Kysely<DB>,
  where: Scope,
  filter: TaskFilter,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: TaskReadRow[]; total: number }> {
  const list = {
    base: filtered(db, where, filter) as never,
    table: 'tasks',
    alias: 't',
    tenantId: where.tenantId,
    searched: Boolean(filter.search?.trim() || filter.description?.trim()),
    // An assignee's, a patient's or a watcher's tasks: a few hundred at most, read once.
    narrowed: Boolean(filter.assigneeIds?.length || filter.patientIds?.length || filter.watcherId || filter.assigneeOrWatcher),
    extra: taskRelations(where.tenantId),
  };
  const order = { keys: sort, fallback: [{ column: 't.created_at', direction: 'desc' as const }], tieBreaker: 't.id' };
  return filteredPage<TaskReadRow>(db as Kysely<never>, list, order, paging);
}
