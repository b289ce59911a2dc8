import { type Static, Type } from 'typebox';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../http/pagination.ts';
import { CsvList, DateTime, Nullable, Uuid } from '../../wire/schemas.ts';
import { Task } from '../tasks/index.ts';
import { goalPriorities } from './formation.ts';

/** The care plan wire contract (001 "Goal (care plan)", PROD-SHAPES "Care plan", "Goal"). */

export const goalStatuses = ['ACTIVE', 'REMOVED', 'COMPLETED'] as const;

export const PatientOverview = Type.Object({
  createdByName: Nullable(Type.String()),
  createdAt: Nullable(DateTime),
  updatedByName: Nullable(Type.String()),
  updatedAt: Nullable(DateTime),
  overview: Nullable(Type.String()),
});

export const CarePlan = Type.Object({
  id: Uuid,
  createdByName: Nullable(Type.String()),
  createdAt: DateTime,
  updatedByName: Nullable(Type.String()),
  updatedAt: DateTime,
  patientId: Uuid,
  patientOverview: Nullable(PatientOverview),
});

export const OverviewInput = Type.Object({ overview: Nullable(Type.String({ maxLength: 100_000 })) });

export const Goal = Type.Object({
  id: Uuid,
  createdByName: Nullable(Type.String()),
  createdAt: DateTime,
  updatedByName: Nullable(Type.String()),
  updatedAt: DateTime,
  name: Type.String(),
  type: Nullable(Type.String()),
  priority: Type.String(),
  status: Type.String(),
  templateName: Nullable(Type.String()),
});

export const GoalComment = Type.Object({
  id: Uuid,
  createdByName: Nullable(Type.String()),
  createdAt: DateTime,
  updatedByName: Nullable(Type.String()),
  updatedAt: DateTime,
  text: Type.String(),
});

export const GoalView = Type.Object({ details: Goal, tasks: Type.Array(Task), comments: Type.Array(GoalComment) });

/**
 * 002 "Export" rule 4: a care plan with its audit fields, its overview (null until one is
 * written, as GET care-plan shows it) and every goal, each as GET .../care-plan/goals/{goalId}
 * answers it.
 */
export const CarePlanExportItem = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
  patientId: Uuid,
  patientOverview: Nullable(PatientOverview),
  goals: Type.Array(GoalView, { description: 'Every goal of the patient, REMOVED ones included, oldest first' }),
});
export type CarePlanExportItemView = Static<typeof CarePlanExportItem>;

export const GoalCreate = Type.Object({ goalTemplateName: Type.String({ minLength: 1, maxLength: 255 }) });

export const GoalPatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  status: Type.Optional(Type.Enum(goalStatuses)),
  priority: Type.Optional(Type.Enum(goalPriorities)),
});
export type GoalPatchBody = Static<typeof GoalPatch>;

export const GoalCommentCreate = Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }) });

export const GoalListQuery = Type.Object({
  status: Type.Optional(CsvList(Type.Enum(goalStatuses), { description: 'One or a comma list; default: all but REMOVED' })),
  page: Type.Integer({ minimum: 0, maximum: MAX_PAGE, default: 0 }),
  size: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 }),
});

export const GoalParams = Type.Object({
  tenantName: Type.String(),
  instanceName: Type.String(),
  patientId: Uuid,
  goalId: Uuid,
});
