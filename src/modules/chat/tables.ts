import type { Timestamp } from '../../db/schema.ts';

/** The chat area's tables (migration 0013), merged into the database's `DB` type. */

export interface ChatMessagesTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  patient_id: string;
  sender_type: string;
  sender_id: string | null;
  receiver_type: string | null;
  receiver_id: string | null;
  message: string | null;
  external_id: string;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
  created_by: string | null;
  created_by_name: string | null;
}

export interface ChatArchivesTable {
  tenant_id: string;
  patient_id: string;
  archived_until: Timestamp;
  created_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    chat_messages: ChatMessagesTable;
    chat_archives: ChatArchivesTable;
  }
}
