import { authorshipView } from '../../events/audit.ts';
import { type TaskReadRow, taskViews } from '../tasks/index.ts';
import type { CarePlanRow, GoalCommentRow, GoalRow } from './store.ts';

/** Care plan, goal and goal comment rows as API objects (PROD-SHAPES "Care plan", "Goal"). */

export function overviewView(row: CarePlanRow) {
  return {
    createdByName: row.overview_created_by_name,
    createdAt: row.overview_created_at,
    updatedByName: row.overview_updated_by_name,
    updatedAt: row.overview_updated_at,
    overview: row.overview,
  };
}

export function carePlanView(row: CarePlanRow) {
  return {
    id: row.id,
    ...authorshipView(row),
    patientId: row.patient_id,
    // An overview never written is null, as production shows it.
    patientOverview: row.overview_created_at ? overviewView(row) : null,
  };
}

export function goalView(row: GoalRow) {
  return {
    id: row.id,
    ...authorshipView(row),
    name: row.name,
    type: row.type,
    priority: row.priority,
    status: row.status,
    templateName: row.template_name,
  };
}

export function goalCommentView(row: GoalCommentRow) {
  return {
    id: row.id,
    ...authorshipView(row),
    text: row.text,
  };
}

/** A goal with its tasks and comments, as GET .../care-plan/goals/{goalId} answers it. */
export function goalEntryView(goal: GoalRow, tasks: TaskReadRow[], comments: GoalCommentRow[]) {
  return {
    details: goalView(goal),
    tasks: taskViews(tasks),
    comments: comments.map(goalCommentView),
  };
}

/** A care plan in the export (002 rule 4): its audit fields, overview and goals. */
export function carePlanExportView(row: CarePlanRow, goals: ReturnType<typeof goalEntryView>[]) {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
    patientId: row.patient_id,
    patientOverview: carePlanView(row).patientOverview,
    goals,
  };
}
