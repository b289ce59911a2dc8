import type { Kysely } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { Work } from '../../events/work.ts';
import type { Context } from '../../http/context.ts';
import type { Paging } from '../../http/pagination.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, badField } from '../../wire/errors.ts';
import {
  createTask,
  insertTasks,
  newTaskRow,
  readGoalTasks,
  type TaskCreateBody,
  taskCreatedAudit,
  taskViews,
} from '../tasks/index.ts';
import { type GoalPatchBody, goalStatuses } from './schemas.ts';
import {
  careTeamRoleHolders,
  commentsOfGoal,
  ensureCarePlan,
  findGoal,
  listGoals,
  pointOfContactOf,
  touchCarePlan,
  upsertOverview,
} from './store.ts';
import { carePlanView, goalCommentView, goalEntryView, goalView, overviewView } from './views.ts';

/** Care plan reads and writes; each write is one unit of work with its audit rows and events. */

type Db = Kysely<DB>;
const DAY_MS = 24 * 60 * 60 * 1000;

async function requireGoal(db: Db, instance: Instance, patientId: string, goalId: string, forUpdate = false) {
  const goal = await findGoal(db, instance.tenantId, patientId, goalId, { forUpdate });
  // Another patient's goal is as missing as an unknown one.
  if (!goal) throw new ApiError('GOAL_NOT_FOUND', { patientId, goalId });
  return goal;
}

/** The care plan is made on first read, so a read is a write under the patient here. */
export async function getCarePlan(ctx: Context, patientId: string) {
  return withPatient(ctx, patientId, async (w, patient) => carePlanView((await carePlanOf(w, ctx.scope, patient.id)).row));
}

/** The patient's care plan, made (and recorded as made) if it is the first time. */
async function carePlanOf(w: Work, scope: Scope, patientId: string) {
  const made = await ensureCarePlan(w, scope, patientId);
  if (made.created) w.changed({ action: 'CARE_PLAN_CREATED', entityType: 'CARE_PLAN', entityId: made.row.id, patientId });
  return made;
}

/**
 * A goal or its comments changed in `w`: the care plan (made if need be) takes the change's
 * stamp in the same write, so the export, ordered by the care plan's update, meets it (002 rule 4).
 */
async function goalsChanged(w: Work, scope: Scope, patientId: string) {
  const { created } = await carePlanOf(w, scope, patientId);
  if (!created) await touchCarePlan(w, scope, patientId);
}

/** POST and PUT .../care-plan/overview: both set the overview and answer the inner overview object. */
export async function saveOverview(ctx: Context, patientId: string, overview: string | null) {
  const row = await withPatient(ctx, patientId, async (w) => {
    const { created } = await ensureCarePlan(w, ctx.scope, patientId);
    const saved = await upsertOverview(w, ctx.scope, patientId, overview);
    if (created) w.changed({ action: 'CARE_PLAN_CREATED', entityType: 'CARE_PLAN', entityId: saved.id, patientId });
    w.changed({
      action: 'CARE_PLAN_OVERVIEW_UPDATED',
      entityType: 'CARE_PLAN',
      entityId: saved.id,
      patientId,
      changedFields: ['overview'],
    });
    return saved;
  });
  return overviewView(row);
}

/** GET .../goals: `status` filters; without it, every goal but the REMOVED ones. */
export async function goalPage(ctx: Context, patientId: string, statuses: string[] | undefined, paging: Paging) {
  await requirePatient(ctx, patientId);
  const wanted = statuses?.length ? [...new Set(statuses)] : goalStatuses.filter((status) => status !== 'REMOVED');
  const { rows, total } = await listGoals(ctx.db, ctx.scope.tenantId, patientId, wanted, paging);
  return { data: rows.map(goalView), total };
}

/**
 * POST .../goals {goalTemplateName}: the goal and one task per task template, in one
 * transaction. A task goes to the first care-team member holding the template's role in this
 * instance, else to the patient's point of contact, else to nobody.
 */
export async function createGoal(ctx: Context, patientId: string, templateName: string) {
  const { instance, actor } = ctx;
  const formation = await ctx.formation();
  const template = (formation.goalTemplates ?? []).find((candidate) => candidate.name === templateName);
  if (!template) throw badField('body.goalTemplateName', `no goal template "${templateName}" in the formation`);
  const taskTemplates = template.taskTemplates ?? [];
  const row = await withPatient(ctx, patientId, async (w) => {
    const { db: trx, now } = w;
    const goal = await trx
      .insertInto('goals')
      .values({
        tenant_id: instance.tenantId,
        id: uuidv7(),
        instance_id: instance.id,
        patient_id: patientId,
        name: template.goalName,
        type: template.type ?? null,
        priority: template.priority ?? 'LOW',
        status: 'ACTIVE',
        template_name: template.name,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const roleNames = [...new Set(taskTemplates.flatMap((task) => (task.subjectConfig ? [task.subjectConfig.roleName] : [])))];
    const holders = await careTeamRoleHolders(trx, instance.tenantId, instance.id, patientId, roleNames);
    const pointOfContact = taskTemplates.length > 0 ? await pointOfContactOf(trx, instance.tenantId, patientId) : null;
    const tasks = await insertTasks(
      trx,
      taskTemplates.map((task, index) => ({
        ...newTaskRow(ctx.scope, actor, now, {
          name: task.taskName || task.name,
          description: task.description ?? null,
          dueDate: task.dueInDays === undefined ? null : new Date(now.getTime() + task.dueInDays * DAY_MS),
          status: 'TODO',
          priority: task.priority ?? 'MEDIUM',
          patientId,
          assigneeId: (task.subjectConfig && holders.get(task.subjectConfig.roleName)) || pointOfContact,
          goalId: goal.id,
          templateName: task.name,
          createdType: 'AUTOMATION',
        }),
        // Distinct instants keep the tasks in template order.
        created_at: new Date(now.getTime() + index),
        updated_at: new Date(now.getTime() + index),
      })),
    );
    w.changed([
      { action: 'GOAL_CREATED', entityType: 'GOAL', entityId: goal.id, patientId },
      ...tasks.map((task) => taskCreatedAudit(task)),
    ]);
    await goalsChanged(w, ctx.scope, patientId);
    return goal;
  });
  return goalView(row);
}

export async function getGoalView(ctx: Context, patientId: string, goalId: string) {
  const { db, instance } = ctx;
  await requirePatient(ctx, patientId);
  const goal = await requireGoal(db, instance, patientId, goalId);
  const [tasks, comments] = await Promise.all([
    readGoalTasks(db, instance.tenantId, goal.id),
    commentsOfGoal(db, instance.tenantId, goal.id),
  ]);
  return goalEntryView(goal, tasks, comments);
}

export async function updateGoal(ctx: Context, patientId: string, goalId: string, body: GoalPatchBody) {
  const { instance } = ctx;
  const row = await withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    const goal = await requireGoal(trx, instance, patientId, goalId, true);
    const changedFields = (['name', 'status', 'priority'] as const).filter((key) => body[key] !== undefined);
    const updated = await trx
      .updateTable('goals')
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.status !== undefined ? { status: body.status } : {}),
        ...(body.priority !== undefined ? { priority: body.priority } : {}),
        ...w.updated(),
      })
      .where('tenant_id', '=', instance.tenantId)
      .where('id', '=', goal.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({ action: 'GOAL_UPDATED', entityType: 'GOAL', entityId: goal.id, patientId, changedFields });
    await goalsChanged(w, ctx.scope, patientId);
    return updated;
  });
  return goalView(row);
}

export async function goalTasks(ctx: Context, patientId: string, goalId: string) {
  const { db, instance } = ctx;
  await requirePatient(ctx, patientId);
  const goal = await requireGoal(db, instance, patientId, goalId);
  return taskViews(await readGoalTasks(db, instance.tenantId, goal.id));
}

/** POST .../goals/{goalId}/tasks: a task of the goal, about the goal's patient. */
export async function createGoalTask(ctx: Context, patientId: string, goalId: string, body: TaskCreateBody) {
  await requirePatient(ctx, patientId);
  const goal = await requireGoal(ctx.db, ctx.instance, patientId, goalId);
  // The task's own transaction holds the patient (createTask locks the patient it names).
  return createTask(ctx, body, { patientId: goal.patient_id, goalId: goal.id });
}

export async function goalComments(ctx: Context, patientId: string, goalId: string) {
  await requirePatient(ctx, patientId);
  const goal = await requireGoal(ctx.db, ctx.instance, patientId, goalId);
  return (await commentsOfGoal(ctx.db, ctx.instance.tenantId, goal.id)).map(goalCommentView);
}

export async function addGoalComment(ctx: Context, patientId: string, goalId: string, text: string) {
  const { instance } = ctx;
  const row = await withPatient(ctx, patientId, async (w) => {
    const goal = await requireGoal(w.db, instance, patientId, goalId);
    const comment = await w.db
      .insertInto('goal_comments')
      .values({
        tenant_id: instance.tenantId,
        id: uuidv7(),
        goal_id: goal.id,
        text,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'GOAL_COMMENT_ADDED',
      entityType: 'GOAL',
      entityId: goal.id,
      patientId,
      changedFields: ['comments'],
    });
    await goalsChanged(w, ctx.scope, patientId);
    return comment;
  });
  return goalCommentView(row);
}
