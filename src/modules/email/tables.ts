import type { Authorship, Json, Timestamp } from '../../db/schema.ts';

/** The email area's tables (migration 0014), merged into the database's `DB` type. */

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

declare module '../../db/schema.ts' {
  interface DB {
    email_drafts: EmailDraftsTable;
  }
}
