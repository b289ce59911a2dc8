import { type Static, type TSchema, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { CsvList, DateTime, Nullable, Uuid } from '../../wire/schemas.ts';

/** The task wire contract (001 "Task", PROD-SHAPES "Task"). */

export const taskStatuses = ['TODO', 'IN_PROGRESS', 'COMPLETED', 'CANCELED'] as const;
/** 001: a task's priorities, least urgent first (a goal template's tasks take them too). */
export const taskPriorities = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
export type TaskPriority = (typeof taskPriorities)[number];

/** 001 names one value of createdType, sourceType and watchersType each; the full sets are not given. */
const Code = Type.String({ pattern: '^[A-Z][A-Z0-9_]*$', maxLength: 50, description: 'Upper-case code' });

/** Optional on write; `null` clears it and, as production sends, `""` counts as null. */
function Clearable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Literal(''), Type.Null()]));
}

/** A reference by id; the rest of an object read earlier (name, enabled) may ride along and is ignored. */
const Ref = Type.Object({ id: Uuid }, { additionalProperties: true });

export const TaskStatusEnum = Type.Enum(taskStatuses);
export const TaskPriorityEnum = Type.Enum(taskPriorities);

const CommentInput = Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }) }, { additionalProperties: true });

const writable = {
  name: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  dueDate: Clearable(DateTime),
  status: TaskStatusEnum,
  priority: TaskPriorityEnum,
  assignee: Ref,
  patient: Type.Optional(Nullable(Ref)),
  watchers: Type.Optional(Nullable(Type.Array(Ref, { maxItems: 500 }))),
  templateName: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  createdType: Clearable(Code),
  sourceId: Clearable(Uuid),
  sourceType: Clearable(Code),
  hiddenPhi: Type.Optional(Nullable(Type.Boolean())),
  watchersType: Clearable(Code),
};

/** POST /tasks: read-only keys sent back (id, goalId, timestamps, ...) are ignored (DECISIONS §10). */
export const TaskCreate = Type.Object({
  ...writable,
  comments: Type.Optional(Nullable(Type.Array(CommentInput, { maxItems: 100 }))),
});
export type TaskCreateBody = Static<typeof TaskCreate>;

/** PATCH /tasks/{id}: only the keys present change (000 convention 7); `comments` are ignored here. */
export const TaskPatch = Type.Object({
  name: Type.Optional(writable.name),
  description: writable.description,
  dueDate: writable.dueDate,
  status: Type.Optional(writable.status),
  priority: Type.Optional(writable.priority),
  assignee: Type.Optional(Nullable(Ref)),
  patient: writable.patient,
  watchers: writable.watchers,
  templateName: writable.templateName,
  createdType: writable.createdType,
  sourceId: writable.sourceId,
  sourceType: writable.sourceType,
  hiddenPhi: writable.hiddenPhi,
  watchersType: writable.watchersType,
});
export type TaskPatchBody = Static<typeof TaskPatch>;

export const TaskBulkPatch = Type.Object({
  taskIds: Type.Array(Uuid, { minItems: 1, maxItems: 1000 }),
  status: TaskStatusEnum,
});

export const WatcherInput = Type.Object({ id: Uuid }, { additionalProperties: true });
export const CommentCreate = Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }) });

const PatientRef = Type.Object({ id: Uuid, name: Type.String() });
const UserRef = Type.Object({ id: Uuid, name: Type.String(), enabled: Type.Boolean() });

export const TaskComment = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  author: Nullable(UserRef),
  text: Type.String(),
  patient: Nullable(PatientRef),
  user: Nullable(Type.Object({ id: Uuid, name: Type.String() })),
});

export const Task = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  dueDate: Nullable(DateTime),
  status: Type.String(),
  priority: Type.String(),
  patient: Nullable(PatientRef),
  assignee: Nullable(UserRef),
  watchers: Type.Array(UserRef),
  comments: Type.Array(TaskComment),
  createdAt: DateTime,
  createdBy: Nullable(Uuid),
  createdByName: Nullable(Type.String()),
  updatedAt: DateTime,
  updatedBy: Nullable(Uuid),
  updatedByName: Nullable(Type.String()),
  goalId: Nullable(Uuid),
  templateName: Nullable(Type.String()),
  createdType: Nullable(Type.String()),
  sourceId: Nullable(Uuid),
  sourceType: Nullable(Type.String()),
  hiddenPhi: Type.Boolean(),
  watchersType: Type.String(),
});
export type TaskView = Static<typeof Task>;
export type TaskCommentView = Static<typeof TaskComment>;

/** A calendar day or a date-time; `dueDate` matches tasks due on that UTC day. */
const DayOrDateTime = Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })]);

export const TaskListQuery = Type.Object({
  templates: Type.Optional(CsvList(Type.String({ maxLength: 255 }), { description: 'templateName is one of these' })),
  withoutTemplate: Type.Optional(Type.Boolean({ description: 'Tasks without a templateName (or in `templates`)' })),
  assigneeIds: Type.Optional(CsvList(Uuid)),
  patientIds: Type.Optional(CsvList(Uuid)),
  statuses: Type.Optional(CsvList(TaskStatusEnum)),
  priorities: Type.Optional(CsvList(TaskPriorityEnum)),
  dueBefore: Type.Optional(DateTime),
  dueAfter: Type.Optional(DateTime),
  dueDate: Type.Optional(DayOrDateTime),
  authorId: Type.Optional(Uuid),
  watcherId: Type.Optional(Uuid),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of name or description, any case' })),
  description: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of description, any case' })),
  // 000 "Versioning": deprecated singular names, merged with the lists.
  assigneeId: Type.Optional(CsvList(Uuid, { description: 'Deprecated: use assigneeIds' })),
  patientId: Type.Optional(CsvList(Uuid, { description: 'Deprecated: use patientIds' })),
  status: Type.Optional(CsvList(TaskStatusEnum, { description: 'Deprecated: use statuses' })),
  priority: Type.Optional(CsvList(TaskPriorityEnum, { description: 'Deprecated: use priorities' })),
  ...PagingQuery,
});
export type TaskListQueryValue = Static<typeof TaskListQuery>;

export const TaskParams = Type.Object({ tenantName: Type.String(), instanceName: Type.String(), taskId: Uuid });
export const WatcherParams = Type.Object({ ...TaskParams.properties, watcherId: Uuid });
export const CommentParams = Type.Object({ ...TaskParams.properties, commentId: Uuid });
