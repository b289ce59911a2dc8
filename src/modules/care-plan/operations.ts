import { v7 as uuidv7 } from 'uuid';
import { type Actor, createdStamp, recordAudit, updatedStamp } from '../../events/audit.ts';
import type { Paging } from '../../http/pagination.ts';
import type { Services } from '../../http/services.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, badField } from '../../wire/errors.ts';
import { requirePatient } from '../patients/operations.ts';
import { createTask, newTaskRow, taskCreatedAudit } from '../tasks/operations.ts';
import type { TaskCreateBody } from '../tasks/schemas.ts';
import { insertTasks, tasksOfGoal } from '../tasks/store.ts';
import { taskViews } from '../tasks/views.ts';
import { type GoalPatchBody, goalStatuses } from './schemas.ts';
import {
  careTeamRoleHolders,
  commentsOfGoal,
  ensureCarePlan,
  findGoal,
  listGoals,
  pointOfContactOf,
  upsertOverview,
} from './store.ts';
import { carePlanView, goalCommentView, goalView, overviewView } from './views.ts';

/** Care plan reads and writes; each write runs in one transaction with its audit rows. */

type Db = Services['db'];
const DAY_MS = 24 * 60 * 60 * 1000;

async function requireGoal(db: Db, instance: Instance, patientId: string, goalId: string, forUpdate = false) {
  const goal = await findGoal(db, instance.tenantId, patientId, goalId, { forUpdate });
  // Another patient's goal is as missing as an unknown one.
  if (!goal) throw new ApiError('GOAL_NOT_FOUND', { patientId, goalId });
  return goal;
}

export async function getCarePlan(services: Services, instance: Instance, actor: Actor, patientId: string) {
  await requirePatient(services.db, instance, patientId);
  return carePlanView(await ensureCarePlan(services.db, instance.tenantId, patientId, actor));
}

/** POST and PUT .../care-plan/overview: both set the overview and answer the inner overview object. */
export async function saveOverview(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  overview: string | null,
) {
  const row = await services.db.transaction().execute(async (trx) => {
    await requirePatient(trx, instance, patientId);
    const saved = await upsertOverview(trx, instance.tenantId, patientId, actor, overview);
    await recordAudit(trx, actor, {
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
export async function goalPage(
  services: Services,
  instance: Instance,
  patientId: string,
  statuses: string[] | undefined,
  paging: Paging,
) {
  await requirePatient(services.db, instance, patientId);
  const wanted = statuses?.length ? [...new Set(statuses)] : goalStatuses.filter((status) => status !== 'REMOVED');
  const { rows, total } = await listGoals(services.db, instance.tenantId, patientId, wanted, paging);
  return { data: rows.map(goalView), total };
}

/**
 * POST .../goals {goalTemplateName}: the goal and one task per task template, in one
 * transaction. A task goes to the first care-team member holding the template's role in this
 * instance, else to the patient's point of contact, else to nobody.
 */
export async function createGoal(services: Services, instance: Instance, actor: Actor, patientId: string, templateName: string) {
  const formation = await services.currentFormation(instance);
  const template = (formation.goalTemplates ?? []).find((candidate) => candidate.name === templateName);
  if (!template) throw badField('body.goalTemplateName', `no goal template "${templateName}" in the formation`);
  const taskTemplates = template.taskTemplates ?? [];
  const row = await services.db.transaction().execute(async (trx) => {
    await requirePatient(trx, instance, patientId);
    const now = new Date();
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
        ...createdStamp(actor, now),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const roleNames = [...new Set(taskTemplates.flatMap((task) => (task.subjectConfig ? [task.subjectConfig.roleName] : [])))];
    const holders = await careTeamRoleHolders(trx, instance.tenantId, instance.id, patientId, roleNames);
    const pointOfContact = taskTemplates.length > 0 ? await pointOfContactOf(trx, instance.tenantId, patientId) : null;
    const tasks = await insertTasks(
      trx,
      taskTemplates.map((task, index) => ({
        ...newTaskRow(instance, actor, {
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
    await recordAudit(trx, actor, [
      { action: 'GOAL_CREATED', entityType: 'GOAL', entityId: goal.id, patientId },
      ...tasks.map((task) => taskCreatedAudit(task)),
    ]);
    return goal;
  });
  return goalView(row);
}

export async function getGoalView(services: Services, instance: Instance, patientId: string, goalId: string) {
  await requirePatient(services.db, instance, patientId);
  const goal = await requireGoal(services.db, instance, patientId, goalId);
  const [tasks, comments] = await Promise.all([
    tasksOfGoal(services.db, instance.tenantId, goal.id),
    commentsOfGoal(services.db, instance.tenantId, goal.id),
  ]);
  return {
    details: goalView(goal),
    tasks: await taskViews(services.db, instance.tenantId, tasks),
    comments: comments.map(goalCommentView),
  };
}

export async function updateGoal(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  goalId: string,
  body: GoalPatchBody,
) {
  const row = await services.db.transaction().execute(async (trx) => {
    await requirePatient(trx, instance, patientId);
    const goal = await requireGoal(trx, instance, patientId, goalId, true);
    const changedFields = (['name', 'status', 'priority'] as const).filter((key) => body[key] !== undefined);
    const updated = await trx
      .updateTable('goals')
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.status !== undefined ? { status: body.status } : {}),
        ...(body.priority !== undefined ? { priority: body.priority } : {}),
        ...updatedStamp(actor),
      })
      .where('tenant_id', '=', instance.tenantId)
      .where('id', '=', goal.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, actor, { action: 'GOAL_UPDATED', entityType: 'GOAL', entityId: goal.id, patientId, changedFields });
    return updated;
  });
  return goalView(row);
}

export async function goalTasks(services: Services, instance: Instance, patientId: string, goalId: string) {
  await requirePatient(services.db, instance, patientId);
  const goal = await requireGoal(services.db, instance, patientId, goalId);
  return taskViews(services.db, instance.tenantId, await tasksOfGoal(services.db, instance.tenantId, goal.id));
}

/** POST .../goals/{goalId}/tasks: a task of the goal, about the goal's patient. */
export async function createGoalTask(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  goalId: string,
  body: TaskCreateBody,
) {
  await requirePatient(services.db, instance, patientId);
  const goal = await requireGoal(services.db, instance, patientId, goalId);
  return createTask(services, instance, actor, body, { patientId: goal.patient_id, goalId: goal.id });
}

export async function goalComments(services: Services, instance: Instance, patientId: string, goalId: string) {
  await requirePatient(services.db, instance, patientId);
  const goal = await requireGoal(services.db, instance, patientId, goalId);
  return (await commentsOfGoal(services.db, instance.tenantId, goal.id)).map(goalCommentView);
}

export async function addGoalComment(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  goalId: string,
  text: string,
) {
  const row = await services.db.transaction().execute(async (trx) => {
    await requirePatient(trx, instance, patientId);
    const goal = await requireGoal(trx, instance, patientId, goalId);
    const comment = await trx
      .insertInto('goal_comments')
      .values({
        tenant_id: instance.tenantId,
        id: uuidv7(),
        goal_id: goal.id,
        text,
        ...createdStamp(actor),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, actor, {
      action: 'GOAL_COMMENT_ADDED',
      entityType: 'GOAL',
      entityId: goal.id,
      patientId,
      changedFields: ['comments'],
    });
    return comment;
  });
  return goalCommentView(row);
}
