import type { Timestamp } from '../../db/schema.ts';
import type { MessageColumns } from '../../records/messages.ts';

/** The voice area's table (migration 0018), merged into the database's `DB` type. */

/** A call: a message record (records/messages.ts) with its legs, durations and recording. */
export interface VoiceCallsTable extends MessageColumns {
  phone_id: string | null;
  /** The member's phone, rung first on an outbound call. */
  user_phone: string | null;
  child_call_sid: string | null;
  parent_call_status: string | null;
  child_call_status: string | null;
  parent_call_duration: number | null;
  child_call_duration: number | null;
  recorded: boolean;
  recording_duration: number | null;
  recording_sid: string | null;
  recording_url: string | null;
  unrecognized: boolean;
  assigned_at: Timestamp | null;
  assigned_by: string | null;
  assigned_by_name: string | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    voice_calls: VoiceCallsTable;
  }
}
