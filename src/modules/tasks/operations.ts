import type { InsertObject, Kysely, UpdateObject } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { type Actor, type AuditAction, type AuditEntry, createdStamp } from '../../events/audit.ts';
import type { Work } from '../../events/work.ts';
import type { Context } from '../../http/context.ts';
import { lockPatient, type PatientRow } from '../../records/patient-scope.ts';
import { missingUserIds } from '../../tenancy/users.ts';
import { ApiError, badField, type FieldError, validationError } from '../../wire/errors.ts';
import { readInstant } from '../../wire/schemas.ts';
import { write } from '../../work/write.ts';
import type { TaskRow } from './read.ts';
import { readTasks } from './read.ts';
import type { TaskCreateBody, TaskPatchBody, TaskView } from './schemas.ts';
import {
  addWatchers,
  findTask,
  insertTasks,
  priorityRank,
  removeComment,
  removeWatcher,
  replaceWatchers,
  searchTextOf,
  touchTask,
} from './store.ts';
import { patientName, taskViews } from './views.ts';

/** The task writes, each one unit of work with its audit rows and events. Care plans create goal tasks through here too. */

type Db = Kysely<DB>;

const blankToNull = <T>(value: T | '' | null | undefined): T | null => (value === '' || value === undefined ? null : value);

/** The task as the API shows it, read again with its relations (one statement). */
export async function viewOf(db: Db, scope: Scope, row: TaskRow): Promise<TaskView> {
  const [view] = taskViews(await readTasks(db, scope, [row.id]));
  return view!;
}

export async function requireTask(db: Db, scope: Scope, taskId: string, forUpdate = false): Promise<TaskRow> {
  const row = await findTask(db, scope, taskId, { forUpdate });
  if (!row) throw new ApiError('TASK_NOT_FOUND', { taskId });
  return row;
}

/** Users a task names must be live users of the tenant; a patient must be of this instance (400 otherwise). */
async function checkUsers(db: Db, tenantId: string, refs: { id: string; path: string }[]): Promise<void> {
  const missing = new Set(
    await missingUserIds(
      db,
      tenantId,
      refs.map((ref) => ref.id),
    ),
  );
  const errors: FieldError[] = refs
    .filter((ref) => missing.has(ref.id))
    .map((ref) => ({ path: ref.path, message: `user ${ref.id} does not exist` }));
  if (errors.length > 0) throw validationError(errors);
}

/**
 * The task's patient, held against deletion until the write commits (a patient-scoped write). A
 * patient in the path (a goal's task) that is gone is 404 like every patient-scoped write; one
 * named in the body is bad input (400).
 */
async function checkPatient(trx: Db, scope: Scope, patientId: string, fromPath: boolean): Promise<PatientRow> {
  const patient = await lockPatient(trx, scope, patientId);
  if (patient) return patient;
  if (fromPath) throw new ApiError('PATIENT_NOT_FOUND', { patientId });
  throw badField('body.patient.id', `patient ${patientId} does not exist`);
}

function uniqueIds(refs: { id: string }[] | null | undefined): string[] {
  return [...new Set((refs ?? []).map((ref) => ref.id))];
}

/** Where a task is created from: a goal fixes its patient and goal (001 "Care plan"). */
export interface TaskOrigin {
  patientId?: string;
  goalId?: string;
}

/** The columns of a new task, created by `actor` at `at`. */
export function newTaskRow(
  scope: Scope,
  actor: Actor,
  at: Date,
  fields: {
    name: string;
    description?: string | null;
    dueDate?: Date | string | null;
    status: string;
    priority: string;
    patientId?: string | null;
    assigneeId?: string | null;
    goalId?: string | null;
    templateName?: string | null;
    createdType?: string | null;
    sourceId?: string | null;
    sourceType?: string | null;
    hiddenPhi?: boolean | null;
    watchersType?: string | null;
  },
): InsertObject<DB, 'tasks'> {
  const description = fields.description ?? null;
  return {
    tenant_id: scope.tenantId,
    instance_id: scope.instanceId,
    id: uuidv7(),
    name: fields.name,
    description,
    due_date: fields.dueDate ? readInstant(fields.dueDate) : null,
    status: fields.status,
    priority: fields.priority,
    priority_rank: priorityRank[fields.priority] ?? 0,
    patient_id: fields.patientId ?? null,
    assignee_id: fields.assigneeId ?? null,
    goal_id: fields.goalId ?? null,
    template_name: fields.templateName ?? null,
    created_type: fields.createdType ?? null,
    source_id: fields.sourceId ?? null,
    source_type: fields.sourceType ?? null,
    hidden_phi: fields.hiddenPhi ?? false,
    // 001: watchersType defaults to POINT_OF_CONTACT.
    watchers_type: fields.watchersType || 'POINT_OF_CONTACT',
    search_text: searchTextOf(fields.name, description),
    ...createdStamp(actor, at),
  };
}

export function taskCreatedAudit(row: TaskRow, changedFields?: string[]): AuditEntry {
  return {
    action: 'TASK_CREATED',
    entityType: 'TASK',
    entityId: row.id,
    patientId: row.patient_id,
    ...(changedFields ? { changedFields } : {}),
  };
}

/**
 * POST /tasks and POST .../goals/{goalId}/tasks. 001: a comment given at creation is
 * attributed to the patient when the task has one, otherwise to the caller.
 */
export async function createTask(ctx: Context, body: TaskCreateBody, origin: TaskOrigin = {}): Promise<TaskView> {
  const { scope, actor } = ctx;
  const row = await write(ctx, async (w) => {
    const trx = w.db;
    const watcherIds = uniqueIds(body.watchers);
    await checkUsers(trx, scope.tenantId, [
      { id: body.assignee.id, path: 'body.assignee.id' },
      ...watcherIds.map((id) => ({ id, path: 'body.watchers' })),
    ]);
    const patientId = origin.patientId ?? body.patient?.id ?? null;
    const patient = patientId ? await checkPatient(trx, scope, patientId, origin.patientId !== undefined) : null;
    const [inserted] = await insertTasks(trx, [
      newTaskRow(scope, actor, w.now, {
        name: body.name,
        description: body.description,
        dueDate: blankToNull(body.dueDate),
        status: body.status,
        priority: body.priority,
        patientId,
        assigneeId: body.assignee.id,
        goalId: origin.goalId ?? null,
        templateName: body.templateName,
        createdType: blankToNull(body.createdType),
        sourceId: blankToNull(body.sourceId),
        sourceType: blankToNull(body.sourceType),
        hiddenPhi: body.hiddenPhi,
        watchersType: blankToNull(body.watchersType),
      }),
    ]);
    const task = inserted!;
    await addWatchers(trx, scope.tenantId, task.id, watcherIds, w.now);
    const comments = body.comments ?? [];
    if (comments.length > 0) {
      const author = patient
        ? { type: 'PATIENT', id: patient.id, name: patientName(patient) }
        : { type: actor.type, id: actor.id, name: actor.name };
      // Distinct instants keep the comments in the order given.
      const start = w.now.getTime();
      await trx
        .insertInto('task_comments')
        .values(
          comments.map((comment, index) => ({
            tenant_id: scope.tenantId,
            id: uuidv7(),
            task_id: task.id,
            text: comment.text,
            author_type: author.type,
            author_id: author.id,
            author_name: author.name,
            created_at: new Date(start + index),
          })),
        )
        .execute();
    }
    w.changed(
      taskCreatedAudit(
        task,
        [...patchKeys, 'comments'].filter((key) => Object.hasOwn(body, key)),
      ),
    );
    return task;
  });
  return viewOf(ctx.db, scope, row);
}

/** One statement: the task and its relations. */
export async function getTask(ctx: Context, taskId: string): Promise<TaskView> {
  const [view] = taskViews(await readTasks(ctx.db, ctx.scope, [taskId]));
  if (!view) throw new ApiError('TASK_NOT_FOUND', { taskId });
  return view;
}

/** Body keys PATCH /tasks/{id} writes, for the audit's changedFields. */
const patchKeys = [
  'name',
  'description',
  'dueDate',
  'status',
  'priority',
  'assignee',
  'patient',
  'watchers',
  'templateName',
  'createdType',
  'sourceId',
  'sourceType',
  'hiddenPhi',
  'watchersType',
] as const;

/** A task whose status changed also says so on its own (DECISIONS §9: TASK_STATUS_CHANGED). */
function statusChanged(w: Work, before: { status: string }, after: TaskRow): void {
  if (before.status === after.status) return;
  w.emit({
    subtype: 'TASK_STATUS_CHANGED',
    recordId: after.id,
    patientId: after.patient_id,
    data: { status: after.status, previousStatus: before.status },
  });
}

/** PATCH /tasks/{id}: only the keys present change (000 convention 7). */
export async function updateTask(ctx: Context, taskId: string, body: TaskPatchBody): Promise<TaskView> {
  const { scope } = ctx;
  const row = await write(ctx, async (w) => {
    const trx = w.db;
    const existing = await requireTask(trx, scope, taskId, true);
    const has = (key: (typeof patchKeys)[number]) => Object.hasOwn(body, key);
    const watcherIds = has('watchers') ? uniqueIds(body.watchers) : [];
    await checkUsers(trx, scope.tenantId, [
      ...(body.assignee ? [{ id: body.assignee.id, path: 'body.assignee.id' }] : []),
      ...watcherIds.map((id) => ({ id, path: 'body.watchers' })),
    ]);
    if (body.patient) await checkPatient(trx, scope, body.patient.id, false);

    const set: UpdateObject<DB, 'tasks'> = {};
    if (body.name !== undefined) set.name = body.name;
    if (has('description')) set.description = body.description ?? null;
    if (has('dueDate')) set.due_date = body.dueDate ? readInstant(body.dueDate) : null;
    if (body.status !== undefined) set.status = body.status;
    if (body.priority !== undefined) {
      set.priority = body.priority;
      set.priority_rank = priorityRank[body.priority] ?? 0;
    }
    if (has('assignee')) set.assignee_id = body.assignee?.id ?? null;
    if (has('patient')) set.patient_id = body.patient?.id ?? null;
    if (has('templateName')) set.template_name = body.templateName ?? null;
    if (has('createdType')) set.created_type = blankToNull(body.createdType);
    if (has('sourceId')) set.source_id = blankToNull(body.sourceId);
    if (has('sourceType')) set.source_type = blankToNull(body.sourceType);
    if (has('hiddenPhi')) set.hidden_phi = body.hiddenPhi ?? false;
    if (has('watchersType')) set.watchers_type = blankToNull(body.watchersType) ?? 'POINT_OF_CONTACT';
    if (body.name !== undefined || has('description')) {
      const name = body.name ?? existing.name;
      const description = has('description') ? (body.description ?? null) : existing.description;
      set.search_text = searchTextOf(name, description);
    }
    const updated = await trx
      .updateTable('tasks')
      .set({ ...set, ...w.updated() })
      .where('tenant_id', '=', scope.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (has('watchers')) await replaceWatchers(trx, scope.tenantId, existing.id, watcherIds, w.now);
    w.changed({
      action: 'TASK_UPDATED',
      entityType: 'TASK',
      entityId: existing.id,
      patientId: updated.patient_id ?? existing.patient_id,
      changedFields: patchKeys.filter(has),
    });
    statusChanged(w, existing, updated);
    return updated;
  });
  return viewOf(ctx.db, scope, row);
}

/** 001 bulk status PATCH: all or nothing; any unknown id is a 404 naming the ids, and nothing changes. */
export async function bulkUpdateStatus(ctx: Context, body: { taskIds: string[]; status: string }): Promise<TaskView[]> {
  const { scope } = ctx;
  const ids = [...new Set(body.taskIds)];
  const rows = await write(ctx, async (w) => {
    const trx = w.db;
    const locked = await trx
      .selectFrom('tasks')
      .select(['id', 'status'])
      .where('tenant_id', '=', scope.tenantId)
      .where('instance_id', '=', scope.instanceId)
      .where('id', 'in', ids)
      .orderBy('id')
      .forUpdate()
      .execute();
    const present = new Set(locked.map((row) => row.id));
    const missing = ids.filter((id) => !present.has(id));
    if (missing.length > 0) {
      throw new ApiError('TASK_NOT_FOUND', { ids: missing }, `No tasks with ids ${missing.slice(0, 10).join(', ')}`);
    }
    const updated = await trx
      .updateTable('tasks')
      .set({ status: body.status, ...w.updated() })
      .where('tenant_id', '=', scope.tenantId)
      .where('id', 'in', ids)
      .returningAll()
      .execute();
    w.changed(
      updated.map((row) => ({
        action: 'TASK_UPDATED',
        entityType: 'TASK',
        entityId: row.id,
        patientId: row.patient_id,
        changedFields: ['status'],
      })),
    );
    const before = new Map(locked.map((row) => [row.id, row]));
    for (const row of updated) statusChanged(w, before.get(row.id)!, row);
    return updated;
  });
  return taskViews(await readTasks(ctx.db, scope, rows.length > 0 ? ids : []));
}

/** PATCH /tasks/{id}/watchers {id}: idempotent; only an actual addition is audited. */
export async function addWatcher(ctx: Context, taskId: string, userId: string): Promise<TaskView> {
  const { scope } = ctx;
  const row = await write(ctx, async (w) => {
    const trx = w.db;
    const task = await requireTask(trx, scope, taskId, true);
    await checkUsers(trx, scope.tenantId, [{ id: userId, path: 'body.id' }]);
    const added = await addWatchers(trx, scope.tenantId, task.id, [userId], w.now);
    if (added.length === 0) return task;
    await recordTaskChange(w, scope, task, 'TASK_WATCHER_ADDED', 'watchers');
    return requireTask(trx, scope, task.id);
  });
  return viewOf(ctx.db, scope, row);
}

export async function deleteWatcher(ctx: Context, taskId: string, userId: string) {
  const { scope } = ctx;
  await write(ctx, async (w) => {
    const task = await requireTask(w.db, scope, taskId, true);
    if (!(await removeWatcher(w.db, scope.tenantId, task.id, userId))) {
      throw new ApiError('TASK_WATCHER_NOT_FOUND', { taskId, watcherId: userId });
    }
    await recordTaskChange(w, scope, task, 'TASK_WATCHER_REMOVED', 'watchers');
  });
}

/** A task's watchers or comments changed: the task counts as updated, and the change is audited. */
async function recordTaskChange(
  w: Work,
  scope: Scope,
  task: { id: string; patient_id: string | null },
  action: AuditAction,
  field: 'watchers' | 'comments',
) {
  await touchTask(w, scope.tenantId, task.id);
  w.changed({
    action,
    entityType: 'TASK',
    entityId: task.id,
    patientId: task.patient_id,
    changedFields: [field],
  });
}

/** PATCH /tasks/{id}/comments {text}: a comment by the caller. */
export async function addComment(ctx: Context, taskId: string, text: string): Promise<TaskView> {
  const { scope, actor } = ctx;
  const row = await write(ctx, async (w) => {
    const trx = w.db;
    const task = await requireTask(trx, scope, taskId, true);
    await trx
      .insertInto('task_comments')
      .values({
        tenant_id: scope.tenantId,
        id: uuidv7(),
        task_id: task.id,
        text,
        author_type: actor.type,
        author_id: actor.id,
        author_name: actor.name,
        created_at: w.now,
      })
      .execute();
    await recordTaskChange(w, scope, task, 'TASK_COMMENT_ADDED', 'comments');
    return requireTask(trx, scope, task.id);
  });
  return viewOf(ctx.db, scope, row);
}

export async function deleteComment(ctx: Context, taskId: string, commentId: string) {
  const { scope } = ctx;
  await write(ctx, async (w) => {
    const task = await requireTask(w.db, scope, taskId, true);
    if (!(await removeComment(w.db, scope.tenantId, task.id, commentId))) {
      throw new ApiError('TASK_COMMENT_NOT_FOUND', { taskId, commentId });
    }
    await recordTaskChange(w, scope, task, 'TASK_COMMENT_DELETED', 'comments');
  });
}
