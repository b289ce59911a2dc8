import type { Authorship, Json, Timestamp } from '../../db/schema.ts';
import type { MessageColumns } from '../../records/messages.ts';

/** The email area's tables (migrations 0014 and 0016), merged into the database's `DB` type. */

export interface EmailDraftsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  patient_id: string;
  contact_id: string | null;
  subject: string | null;
  body: string | null;
  body_type: string;
  email_editor_json: Json<Record<string, unknown>> | null;
  scheduled_at: Timestamp | null;
  draft_date: Timestamp | null;
  sender: string | null;
  sender_name: string | null;
  patient_email: string | null;
  secure: boolean;
  attachments_from_template: Json<unknown[]>;
  priority: string;
  source: string;
  template_name: string | null;
  status: string;
  starred: boolean;
}

/** An email: a message record (records/messages.ts) with its own fields. */
export interface EmailsTable extends MessageColumns {
  subject: string | null;
  body: string | null;
  body_type: string;
  secure: boolean;
  priority: string;
  source: string;
  template_name: string | null;
  attachments_from_template: Json<unknown[]>;
}

declare module '../../db/schema.ts' {
  interface DB {
    email_drafts: EmailDraftsTable;
    emails: EmailsTable;
  }
}
