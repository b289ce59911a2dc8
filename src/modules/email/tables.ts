import type { Authorship, Json, Timestamp } from '../../db/schema.ts';

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

export interface EmailsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  /** Null: an inbound email from an address no patient or contact has (UNRECOGNISED). */
  patient_id: string | null;
  contact_id: string | null;
  direction: 'IN' | 'OUT';
  status: string;
  subject: string | null;
  body: string | null;
  body_type: string;
  secure: boolean;
  from_address: string;
  to_address: string;
  sender: string | null;
  sender_type: string;
  sender_name: string | null;
  receiver: string | null;
  receiver_type: string;
  receiver_name: string | null;
  care_team: string | null;
  patient_info: string | null;
  timezone: string | null;
  scheduled_at: Timestamp | null;
  sent_at: Timestamp | null;
  received_at: Timestamp | null;
  date: Timestamp;
  external_id: string | null;
  error_message: string | null;
  starred: boolean;
  priority: string;
  source: string;
  template_name: string | null;
  message_type: string;
  attachments_from_template: Json<unknown[]>;
  skip_event: boolean;
}

declare module '../../db/schema.ts' {
  interface DB {
    email_drafts: EmailDraftsTable;
    emails: EmailsTable;
  }
}
