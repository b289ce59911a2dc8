import type { Authorship, Timestamp } from '../../db/schema.ts';

/** The fax area's table (migration 0019), merged into the database's `DB` type. */

export interface FaxesTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  direction: 'IN' | 'OUT';
  status: string;
  /** The vendor's own word for its status, as it said it. */
  original_status: string | null;
  status_message: string | null;
  /** The vendor's id of the fax. */
  external_id: string | null;
  /** E.164. */
  from_number: string | null;
  to_number: string | null;
  subject: string | null;
  high_quality: boolean;
  patient_id: string | null;
  /** Incoming faxes only: false until someone has looked at it. */
  reviewed: boolean | null;
  received_at: Timestamp | null;
  sent_at: Timestamp | null;
  sent_by: string | null;
  sent_by_name: string | null;
  pages: number | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    faxes: FaxesTable;
  }
}
