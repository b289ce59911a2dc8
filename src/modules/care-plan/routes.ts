import { Type } from 'typebox';
import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { DataAndMeta, dataAndMeta } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { PatientParams } from '../../wire/schemas.ts';
import { Task, TaskCreate } from '../tasks/index.ts';
import {
  addGoalComment,
  createGoal,
  createGoalTask,
  getCarePlan,
  getGoalView,
  goalComments,
  goalPage,
  goalTasks,
  saveOverview,
  updateGoal,
} from './operations.ts';
import {
  CarePlan,
  Goal,
  GoalComment,
  GoalCommentCreate,
  GoalCreate,
  GoalListQuery,
  GoalParams,
  GoalPatch,
  GoalView,
  OverviewInput,
  PatientOverview,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Care plan'];
const P = '/:tenantName/:instanceName/patients/:patientId/care-plan';

const carePlanRoutes: AreaPlugin = async (app) => {
  app.get(
    P,
    {
      config: needs('CARE_PLAN_READ', { discloses: thePatient('CARE_PLAN') }),
      schema: {
        tags,
        summary: "Read the patient's care plan (made on first access)",
        params: PatientParams,
        response: { 200: CarePlan, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return getCarePlan(ctx, request.params.patientId);
    },
  );

  for (const method of ['post', 'put'] as const) {
    app[method](
      `${P}/overview`,
      {
        config: needs('CARE_PLAN_UPDATE', { discloses: thePatient('CARE_PLAN') }),
        schema: {
          tags,
          summary: 'Set the care plan overview; answers the overview object',
          description: 'POST and PUT do the same; both answer 200.',
          params: PatientParams,
          body: OverviewInput,
          response: { 200: PatientOverview, ...errors },
        },
      },
      async (request) => {
        const ctx = contextOf(request);
        return saveOverview(ctx, request.params.patientId, request.body.overview);
      },
    );
  }

  app.get(
    `${P}/goals`,
    {
      config: needs('CARE_PLAN_READ', { discloses: thePatient('GOAL') }),
      schema: {
        tags,
        summary: "List the patient's goals (data and meta), oldest first",
        description: '`status` takes one status or a comma list; without it, every goal but the REMOVED ones.',
        params: PatientParams,
        querystring: GoalListQuery,
        response: { 200: DataAndMeta(Goal), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { page, size, status } = request.query;
      const { data, total } = await goalPage(ctx, request.params.patientId, status, { page, size });
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.post(
    `${P}/goals`,
    {
      config: needs('CARE_PLAN_UPDATE', { discloses: thePatient('GOAL') }),
      schema: {
        tags,
        summary: 'Add a goal from a goal template, with a task per task template',
        description:
          'Each task goes to the first care-team member holding the task template’s role in this instance, else to the patient’s point of contact, else to nobody.',
        params: PatientParams,
        body: GoalCreate,
        response: { 201: Goal, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      reply.code(201);
      return createGoal(ctx, request.params.patientId, request.body.goalTemplateName);
    },
  );

  app.get(
    `${P}/goals/:goalId`,
    {
      config: needs('CARE_PLAN_READ', { discloses: thePatient('GOAL') }),
      schema: {
        tags,
        summary: 'Read a goal with its tasks and comments',
        params: GoalParams,
        response: { 200: GoalView, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return getGoalView(ctx, request.params.patientId, request.params.goalId);
    },
  );

  app.patch(
    `${P}/goals/:goalId`,
    {
      config: needs('CARE_PLAN_UPDATE', { discloses: thePatient('GOAL') }),
      schema: {
        tags,
        summary: 'Change a goal’s name, status or priority (status REMOVED removes it)',
        params: GoalParams,
        body: GoalPatch,
        response: { 200: Goal, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, goalId } = request.params;
      return updateGoal(ctx, patientId, goalId, request.body);
    },
  );

  app.get(
    `${P}/goals/:goalId/tasks`,
    {
      config: needs('CARE_PLAN_READ', { discloses: thePatient('TASK') }),
      schema: { tags, summary: 'The tasks of a goal', params: GoalParams, response: { 200: Type.Array(Task), ...errors } },
    },
    async (request) => {
      const ctx = contextOf(request);
      return goalTasks(ctx, request.params.patientId, request.params.goalId);
    },
  );

  app.post(
    `${P}/goals/:goalId/tasks`,
    {
      config: needs('CARE_PLAN_UPDATE', { discloses: thePatient('TASK') }),
      schema: {
        tags,
        summary: "Add a task to a goal, about the goal's patient",
        params: GoalParams,
        body: TaskCreate,
        response: { 201: Task, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { patientId, goalId } = request.params;
      const task = await createGoalTask(ctx, patientId, goalId, request.body);
      reply.code(201);
      return task;
    },
  );

  app.get(
    `${P}/goals/:goalId/comments`,
    {
      config: needs('CARE_PLAN_READ', { discloses: thePatient('GOAL_COMMENT') }),
      schema: {
        tags,
        summary: 'The comments of a goal, oldest first',
        params: GoalParams,
        response: { 200: Type.Array(GoalComment), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return goalComments(ctx, request.params.patientId, request.params.goalId);
    },
  );

  app.post(
    `${P}/goals/:goalId/comments`,
    {
      config: needs('CARE_PLAN_UPDATE', { discloses: thePatient('GOAL_COMMENT') }),
      schema: {
        tags,
        summary: 'Comment on a goal',
        params: GoalParams,
        body: GoalCommentCreate,
        response: { 201: GoalComment, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { patientId, goalId } = request.params;
      const comment = await addGoalComment(ctx, patientId, goalId, request.body.text);
      reply.code(201);
      return comment;
    },
  );
};

export default carePlanRoutes;
