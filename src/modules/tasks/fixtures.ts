import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A task about the patient, assigned to and watched by the user, with a comment. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths } = f;
    const task = await f.call('POST', `${paths.instance}/tasks`, `${t.base}/tasks`, {
      name: `Task ${marker}`,
      description: `About ${marker}`,
      status: 'TODO',
      priority: 'HIGH',
      assignee: { id: f.ids.user },
      patient: { id: f.ids.patient },
      watchers: [{ id: f.ids.user }],
    });
    const commented = await f.call('PATCH', `${paths.instance}/tasks/{taskId}/comments`, `${t.base}/tasks/${task.id}/comments`, {
      text: `Comment ${marker}`,
    });
    f.bodies[`PATCH ${paths.instance}/tasks/{taskId}/watchers`] = { id: f.ids.user };
    await f.call('PATCH', `${paths.instance}/tasks`, `${t.base}/tasks`, { taskIds: [task.id], status: 'IN_PROGRESS' });
    Object.assign(f.ids, { task: task.id, taskComment: commented.comments[0].id });
  },
  params: {
    taskId: (f) => f.ids.task,
    watcherId: (f) => f.ids.user,
    commentId: (f, path) => (path.includes('/tasks/{taskId}/comments/') ? f.ids.taskComment : undefined),
  },
};
