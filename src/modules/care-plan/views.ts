import { authorshipView } from '../../events/audit.ts';
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
