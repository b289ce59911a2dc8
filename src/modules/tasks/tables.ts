import type { Authorship, Timestamp } from '../../db/schema.ts';

/** The tasks area's tables, merged into the database's `DB` type. */

export interface TasksTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  name: string;
  description: string | null;
  due_date: Date | null;
  status: string;
  priority: string;
  /** LOW 1 … URGENT 4, so priority sorts by urgency rather than alphabetically. */
  priority_rank: number;
  patient_id: string | null;
  assignee_id: string | null;
  goal_id: string | null;
  template_name: string | null;
  created_type: string | null;
  source_id: string | null;
  source_type: string | null;
  hidden_phi: boolean;
  watchers_type: string;
  search_text: string;
}

export interface TaskWatchersTable {
  tenant_id: string;
  task_id: string;
  user_id: string;
  created_at: Timestamp;
}

export interface TaskCommentsTable {
  tenant_id: string;
  id: string;
  task_id: string;
  text: string;
  /** PATIENT, API_CLIENT, USER or SYSTEM (001: comment attribution). */
  author_type: string;
  author_id: string | null;
  author_name: string | null;
  created_at: Timestamp;
}

declare module '../../db/schema.ts' {
  interface DB {
    tasks: TasksTable;
    task_watchers: TaskWatchersTable;
    task_comments: TaskCommentsTable;
  }
}
