import type { Json } from '../../db/schema.ts';
import type { MessageColumns } from '../../records/messages.ts';

/** The SMS area's table (migration 0017), merged into the database's `DB` type. */

/** An SMS: a message record (records/messages.ts) with its text, its parts and the instance phone it went by. */
export interface SmsMessagesTable extends MessageColumns {
  message: string;
  /** Segments it takes (GSM-7 or UCS-2), as carriers bill them. */
  parts: number;
  phone_id: string | null;
  attachments_from_template: Json<unknown[]>;
}

declare module '../../db/schema.ts' {
  interface DB {
    sms_messages: SmsMessagesTable;
  }
}
