import type { CommentJson, TaskReadRow, UserName } from './read.ts';
import type { TaskCommentView, TaskView } from './schemas.ts';

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

/** Task rows, read with their relations (read.ts), as API objects: no query here. */
export function taskViews(rows: TaskReadRow[]): TaskView[] {
  const user = (row: UserName | null) => row && { id: row.id, name: userName(row), enabled: row.enabled };
  return rows.map((row) => {
    const patient = row.patient && { id: row.patient.id, name: patientName(row.patient) };
    const comments = row.comments.map((comment): TaskCommentView => {
      const author = authorOf(comment);
      return {
        id: comment.id,
        createdAt: new Date(comment.created_at),
        author,
        text: comment.text,
        // 001: a comment is about the task's patient; `user` names the care-team member who wrote it.
        patient,
        user: comment.author_type === 'USER' && author ? { id: author.id, name: author.name } : null,
      };
    });
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      dueDate: row.due_date,
      status: row.status,
      priority: row.priority,
      patient,
      assignee: user(row.assignee),
      watchers: row.watchers.map((watcher) => user(watcher)!),
      comments,
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
    };
  });
}

/** The author as it is now (a user's current name); the name stored at writing time is the fallback. */
function authorOf(comment: CommentJson): TaskCommentView['author'] {
  const id = comment.author_id;
  if (!id) return null;
  const stored = comment.author_name ?? '';
  switch (comment.author_type) {
    case 'USER':
      return comment.author_user
        ? { id, name: userName(comment.author_user), enabled: comment.author_user.enabled }
        : { id, name: stored, enabled: false };
    case 'PATIENT':
      return { id, name: comment.author_patient ? patientName(comment.author_patient) : stored, enabled: true };
    case 'API_CLIENT':
      return { id, name: stored, enabled: comment.author_client_enabled ?? false };
    default:
      return { id, name: stored, enabled: true };
  }
}
