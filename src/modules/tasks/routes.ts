import { Type } from 'typebox';
import { eachPatient, itsPatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { DataAndMeta, dataAndMeta, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams, readInstant } from '../../wire/schemas.ts';
import {
  addComment,
  addWatcher,
  bulkUpdateStatus,
  createTask,
  deleteComment,
  deleteWatcher,
  getTask,
  updateTask,
} from './operations.ts';
import {
  CommentCreate,
  CommentParams,
  Task,
  TaskBulkPatch,
  TaskCreate,
  TaskListQuery,
  type TaskListQueryValue,
  TaskParams,
  TaskPatch,
  WatcherInput,
  WatcherParams,
} from './schemas.ts';
import { listTasks, sortableTaskFields, type TaskFilter } from './store.ts';
import { taskViews } from './views.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Tasks'];

function merged<T>(...lists: (T[] | undefined)[]): T[] | undefined {
  const all = lists.flatMap((list) => list ?? []);
  return all.length > 0 ? [...new Set(all)] : undefined;
}

/** The UTC day a `dueDate` value falls on, as [start, end). */
function utcDay(value: string): [Date, Date] {
  const instant = readInstant(value);
  const start = Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate());
  return [new Date(start), new Date(start + 24 * 60 * 60 * 1000)];
}

/** The list filter: the deprecated singular names (000 "Versioning") are merged with the lists. */
function filterOf(query: TaskListQueryValue): TaskFilter {
  const filter: TaskFilter = {
    templates: merged(query.templates),
    withoutTemplate: query.withoutTemplate === true ? true : undefined,
    assigneeIds: merged(query.assigneeIds, query.assigneeId),
    patientIds: merged(query.patientIds, query.patientId),
    statuses: merged(query.statuses, query.status),
    priorities: merged(query.priorities, query.priority),
    dueBefore: query.dueBefore,
    dueAfter: query.dueAfter,
    dueDay: query.dueDate ? utcDay(query.dueDate) : undefined,
    authorId: query.authorId,
    watcherId: query.watcherId,
    search: query.search?.trim() || undefined,
    description: query.description?.trim() || undefined,
  };
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)) as TaskFilter;
}

const taskRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/:instanceName/tasks',
    {
      config: needs('TASK_READ', { discloses: eachPatient('TASK', 'data', 'patient.id') }),
      schema: {
        tags,
        summary: 'Search tasks (data and meta)',
        description:
          'Without any filter, a user caller sees the tasks it is assignee or watcher of; an API client sees all. `search` matches a substring of name or description, `description` one of description, in any case. `dueDate` matches tasks due on that UTC day. `templates` and `withoutTemplate=true` together match either. Sort on name, dueDate, status, priority (by urgency), createdAt, updatedAt; default createdAt,desc.',
        params: InstanceParams,
        querystring: TaskListQuery,
        response: { 200: DataAndMeta(Task), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { page, size, sort } = request.query;
      const sortKeys = parseSort(sort, sortableTaskFields);
      const filter = filterOf(request.query);
      // 001: a user caller with no filter at all sees its own tasks; an API client sees all.
      if (Object.keys(filter).length === 0 && ctx.caller?.type === 'USER') filter.assigneeOrWatcher = ctx.caller.id;
      const { rows, total } = await listTasks(ctx.db, ctx.scope, filter, { page, size }, sortKeys);
      return dataAndMeta(taskViews(rows), total, { page, size });
    },
  );

  app.post(
    '/:tenantName/:instanceName/tasks',
    {
      config: needs('TASK_UPDATE', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: {
        tags,
        summary: 'Create a task',
        description:
          'name, status, priority and assignee are required; the assignee and watchers must be users of the tenant and the patient a patient of this instance. A comment given here is attributed to the patient when the task has one, otherwise to the caller.',
        params: InstanceParams,
        body: TaskCreate,
        response: { 201: Task, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      reply.code(201);
      return createTask(ctx, request.body);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/tasks',
    {
      config: needs('TASK_UPDATE', { discloses: eachPatient('TASK', '', 'patient.id') }),
      schema: {
        tags,
        summary: 'Set the status of many tasks, all or nothing',
        description: 'Any unknown id is a 404 TASK_NOT_FOUND listing the ids, and no task changes.',
        params: InstanceParams,
        body: TaskBulkPatch,
        response: { 200: Type.Array(Task), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return bulkUpdateStatus(ctx, request.body);
    },
  );

  app.get(
    '/:tenantName/:instanceName/tasks/:taskId',
    {
      config: needs('TASK_READ', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: { tags, summary: 'Read a task', params: TaskParams, response: { 200: Task, ...errors } },
    },
    async (request) => {
      const ctx = contextOf(request);
      return getTask(ctx, request.params.taskId);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/tasks/:taskId',
    {
      config: needs('TASK_UPDATE', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: {
        tags,
        summary: 'Change the fields present in the body',
        description:
          '`assignee: null` or `patient: null` clears it; `watchers` replaces the watcher list; `comments` are ignored (use the comments route).',
        params: TaskParams,
        body: TaskPatch,
        response: { 200: Task, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return updateTask(ctx, request.params.taskId, request.body);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/tasks/:taskId/watchers',
    {
      config: needs('TASK_UPDATE', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: {
        tags,
        summary: 'Add a watcher (a user); adding one already watching changes nothing',
        params: TaskParams,
        body: WatcherInput,
        response: { 200: Task, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return addWatcher(ctx, request.params.taskId, request.body.id);
    },
  );

  app.delete(
    '/:tenantName/:instanceName/tasks/:taskId/watchers/:watcherId',
    {
      config: needs('TASK_UPDATE', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: {
        tags,
        summary: 'Remove a watcher',
        params: WatcherParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      await deleteWatcher(ctx, request.params.taskId, request.params.watcherId);
      return reply.send();
    },
  );

  app.patch(
    '/:tenantName/:instanceName/tasks/:taskId/comments',
    {
      config: needs('TASK_UPDATE', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: {
        tags,
        summary: 'Add a comment by the caller',
        params: TaskParams,
        body: CommentCreate,
        response: { 200: Task, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return addComment(ctx, request.params.taskId, request.body.text);
    },
  );

  app.delete(
    '/:tenantName/:instanceName/tasks/:taskId/comments/:commentId',
    {
      config: needs('TASK_UPDATE', { discloses: itsPatient('TASK', 'patient.id') }),
      schema: {
        tags,
        summary: 'Delete a comment',
        params: CommentParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      await deleteComment(ctx, request.params.taskId, request.params.commentId);
      return reply.send();
    },
  );
};

export default taskRoutes;
