import type { Context } from '../../http/context.ts';
import type { ExportSource } from '../../http/export.ts';
import { CarePlanExportItem, type CarePlanExportItemView } from './schemas.ts';
import { type CarePlanRow, commentsOfGoals, goalsOfPatients, tasksOfGoals } from './store.ts';
import { carePlanExportView, goalEntryView } from './views.ts';

/**
 * Care plans in the bulk export (002 rule 4), each with its goals as GET .../goals/{goalId}
 * answers them. A page is four statements whatever its size: the care plans, then their
 * patients' goals, those goals' tasks and their comments, one statement each. A change to a goal
 * or its comments moves its care plan's update time (operations.ts), so the walk meets it again.
 */
async function carePlanExportViews(ctx: Context, rows: CarePlanRow[]): Promise<CarePlanExportItemView[]> {
  const { tenantId } = ctx.scope;
  const goals = await goalsOfPatients(
    ctx.db,
    tenantId,
    rows.map((row) => row.patient_id),
  );
  const goalIds = goals.map((goal) => goal.id);
  const [tasks, comments] = await Promise.all([
    tasksOfGoals(ctx.db, tenantId, goalIds),
    commentsOfGoals(ctx.db, tenantId, goalIds),
  ]);
  const tasksOf = groupBy(tasks, (task) => task.goal_id);
  const commentsOf = groupBy(comments, (comment) => comment.goal_id);
  const goalsOf = groupBy(goals, (goal) => goal.patient_id);
  return rows.map((row) => {
    const entries = (goalsOf.get(row.patient_id) ?? []).map((goal) =>
      goalEntryView(goal, tasksOf.get(goal.id) ?? [], commentsOf.get(goal.id) ?? []),
    );
    return carePlanExportView(row, entries);
  });
}

/** Items by key, each group in the items' order. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string | null): Map<string | null, T[]> {
  const groups = new Map<string | null, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

export const carePlanExport: ExportSource = {
  permission: 'CARE_PLAN_EXPORT',
  summary: 'care plans with their goals',
  item: CarePlanExportItem,
  table: 'care_plans',
  patientsOf: { column: 'patient_id' },
  view: (ctx, rows) => carePlanExportViews(ctx, rows),
};
