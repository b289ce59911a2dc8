import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { TaskCommentView, TaskView } from './schemas.ts';
import { clientsByIds, commentsOf, patientsByIds, type TaskRow, usersByIds, watchersOf } from './store.ts';

interface NameParts {
  username: string;
  first_name: string | null;
  last_name: string | null;
}

/** A user's name: "First Last", or the username when neither is set. */
export function userName(user: NameParts): string {
  return [user.first_name, user.last_name].filter(Boolean).join(' ') || user.username;
}

/** A patient's name: "First Last". */
export function patientName(patient: { first_name: string; last_name: string }): string {
  return [patient.first_name, patient.last_name].filter(Boolean).join(' ');
}

/**
 * Task rows as API objects. Watchers and comments of the whole page, then the users, patients
 * and API clients they name, are loaded in batches: five queries whatever the page size.
 */
export async function taskViews(db: Kysely<DB>, tenantId: string, rows: TaskRow[]): Promise<TaskView[]> {
  if (rows.length === 0) return [];
  const taskIds = rows.map((row) => row.id);
  const [watchers, comments] = await Promise.all([watchersOf(db, tenantId, taskIds), commentsOf(db, tenantId, taskIds)]);
  const authorIds = (type: string) =>
    comments.filter((comment) => comment.author_type === type && comment.author_id).map((comment) => comment.author_id!);
  const [users, patients, clients] = await Promise.all([
    usersByIds(db, tenantId, [...rows.flatMap((row) => (row.assignee_id ? [row.assignee_id] : [])), ...authorIds('USER')]),
    patientsByIds(db, tenantId, [...rows.flatMap((row) => (row.patient_id ? [row.patient_id] : [])), ...authorIds('PATIENT')]),
    clientsByIds(db, tenantId, authorIds('API_CLIENT')),
  ]);
  const userById = new Map(users.map((user) => [user.id, { id: user.id, name: userName(user), enabled: user.enabled }]));
  const patientById = new Map(patients.map((patient) => [patient.id, { id: patient.id, name: patientName(patient) }]));
  const clientById = new Map(clients.map((client) => [client.id, client]));

  const watchersByTask = new Map<string, TaskView['watchers']>();
  for (const watcher of watchers) {
    const list = watchersByTask.get(watcher.task_id) ?? [];
    list.push({ id: watcher.id, name: userName(watcher), enabled: watcher.enabled });
    watchersByTask.set(watcher.task_id, list);
  }

  const taskPatient = new Map(rows.map((row) => [row.id, row.patient_id ? (patientById.get(row.patient_id) ?? null) : null]));
  const commentsByTask = new Map<string, TaskCommentView[]>();
  for (const comment of comments) {
    const author = authorOf(comment, userById, patientById, clientById);
    const list = commentsByTask.get(comment.task_id) ?? [];
    list.push({
      id: comment.id,
      createdAt: comment.created_at,
      author,
      text: comment.text,
      // 001: a comment is about the task's patient; `user` names the care-team member who wrote it.
      patient: taskPatient.get(comment.task_id) ?? null,
      user: comment.author_type === 'USER' && author ? { id: author.id, name: author.name } : null,
    });
    commentsByTask.set(comment.task_id, list);
  }

  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    dueDate: row.due_date,
    status: row.status,
    priority: row.priority,
    patient: taskPatient.get(row.id) ?? null,
    assignee: row.assignee_id ? (userById.get(row.assignee_id) ?? null) : null,
    watchers: watchersByTask.get(row.id) ?? [],
    comments: commentsByTask.get(row.id) ?? [],
    createdAt: row.created_at,
    createdBy: row.created_by,
    createdByName: row.created_by_name,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    updatedByName: row.updated_by_name,
    goalId: row.goal_id,
    templateName: row.template_name,
    createdType: row.created_type,
    sourceId: row.source_id,
    sourceType: row.source_type,
    hiddenPhi: row.hidden_phi,
    watchersType: row.watchers_type,
  }));
}

/** The author as it is now (a user's current name); the name stored at writing time is the fallback. */
function authorOf(
  comment: { author_type: string; author_id: string | null; author_name: string | null },
  users: Map<string, { id: string; name: string; enabled: boolean }>,
  patients: Map<string, { id: string; name: string }>,
  clients: Map<string, { enabled: boolean }>,
): TaskCommentView['author'] {
  const id = comment.author_id;
  if (!id) return null;
  const stored = comment.author_name ?? '';
  switch (comment.author_type) {
    case 'USER':
      return users.get(id) ?? { id, name: stored, enabled: false };
    case 'PATIENT':
      return { id, name: patients.get(id)?.name ?? stored, enabled: true };
    case 'API_CLIENT':
      return { id, name: stored, enabled: clients.get(id)?.enabled ?? false };
    default:
      return { id, name: stored, enabled: true };
  }
}
