import { type AreaFixtures, created } from '../../test/route-fixtures.ts';

/** The patient's care plan with an overview, and a goal from the first template with a comment and a task. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths, formation } = f;
    const patientUrl = `${t.base}/patients/${f.ids.patient}`;
    await f.call('POST', `${paths.patient}/care-plan/overview`, `${patientUrl}/care-plan/overview`, {
      overview: `Overview ${marker}`,
    });
    const carePlan = created(await t.api.get(`${patientUrl}/care-plan`), 'care plan');
    const goal = await f.call('POST', `${paths.patient}/care-plan/goals`, `${patientUrl}/care-plan/goals`, {
      goalTemplateName: formation.goalTemplates![0]!.name,
    });
    const goalUrl = `${patientUrl}/care-plan/goals/${goal.id}`;
    const comment = await f.call('POST', `${paths.patient}/care-plan/goals/{goalId}/comments`, `${goalUrl}/comments`, {
      text: `Goal comment ${marker}`,
    });
    const goalTask = await f.call('POST', `${paths.patient}/care-plan/goals/{goalId}/tasks`, `${goalUrl}/tasks`, {
      name: `Goal task ${marker}`,
      status: 'TODO',
      priority: 'LOW',
      assignee: { id: f.ids.user },
    });
    Object.assign(f.ids, { carePlan: carePlan.id, goal: goal.id, goalComment: comment.id, goalTask: goalTask.id });
  },
  params: {
    goalId: (f) => f.ids.goal,
    commentId: (f, path) => (path.includes('/goals/{goalId}/comments/') ? f.ids.goalComment : undefined),
  },
};
