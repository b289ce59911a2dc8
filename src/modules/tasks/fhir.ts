import type { Row } from '../../db/schema.ts';
import { absentParam, compact, dateParam, type FhirResource, reference, referenceParam, tokenParam } from '../../http/fhir.ts';

/**
 * A Cairn task as a FHIR R4 Task (US Core 5.0.1 has no Task profile: base R4). Each field's mapping
 * is in docs/fhir.md; what has no home (watchers, comments' authors, the template) is said there.
 */

const STATUSES: Record<string, string> = {
  TODO: 'requested',
  IN_PROGRESS: 'in-progress',
  COMPLETED: 'completed',
  CANCELED: 'cancelled',
};

/** FHIR's request priorities are four, Cairn's four, but not the same scale: LOW and MEDIUM are both routine. */
const PRIORITIES: Record<string, string> = { LOW: 'routine', MEDIUM: 'routine', HIGH: 'urgent', URGENT: 'asap' };

export const TASK_ID_SYSTEM = 'https://cairn.health/fhir/sid/task-id';
/** The canonical URL of the due date's search parameter, Cairn's own (not served as a resource, as Cairn's CodeSystems are not). */
export const TASK_DUE_DATE_PARAM = 'https://cairn.health/fhir/SearchParameter/Task-due-date';

type TaskRow = Row<'tasks'>;

function taskOf(row: TaskRow) {
  return {
    resourceType: 'Task',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [{ use: 'usual', system: TASK_ID_SYSTEM, value: row.id }],
    status: STATUSES[row.status] ?? 'requested',
    intent: 'order',
    priority: PRIORITIES[row.priority],
    description: row.name,
    for: reference('Patient', row.patient_id),
    owner: reference('Practitioner', row.assignee_id),
    authoredOn: row.created_at.toISOString(),
    lastModified: row.updated_at.toISOString(),
    // The due date limits when the work may be done (R4: restriction.period); no executionPeriod, as Cairn keeps no times of the work.
    ...(row.due_date ? { restriction: { period: { end: row.due_date.toISOString() } } } : {}),
    note: row.description ? [{ text: row.description }] : [],
  };
}

/** Task, searched by the patient, status, owner and times; each served by one of the tasks' indexes (`period` needs none). */
export const fhirTask: FhirResource = {
  type: 'Task',
  permission: 'TASK_READ',
  table: 'tasks',
  instanceScoped: true,
  patient: { column: 'patient_id' },
  logAs: 'TASK',
  auditEntity: 'TASK',
  notFound: 'TASK_NOT_FOUND',
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    owner: referenceParam('Practitioner', 'assignee_id'),
    status: tokenParam('status', 'status', STATUSES),
    'authored-on': dateParam('authored-on', 'created_at', 'instant'),
    modified: dateParam('modified', 'updated_at', 'instant'),
    // R4's `period` is Task.executionPeriod, when the work was done: Cairn keeps no such times, so it matches none.
    period: absentParam('period', 'date'),
    // The due date, which R4 has no parameter for: Cairn's own, declared in the CapabilityStatement.
    'due-date': {
      ...dateParam('due-date', 'due_date', 'instant'),
      definition: {
        url: TASK_DUE_DATE_PARAM,
        documentation: "Cairn's own: when the task is due, Task.restriction.period.end (the due date index)",
      },
    },
  },
  toFhir: (row: TaskRow) => compact(taskOf(row)),
};
