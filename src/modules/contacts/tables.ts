import type { Authorship } from '../../db/schema.ts';

/** The contacts area's tables, merged into the database's `DB` type. */

export interface ContactsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  patient_id: string;
  pdt_record_id: string | null;
  name: string | null;
  email: string | null;
  email_label: string | null;
  email_pdt_field_name: string | null;
  phone: string | null;
  phone_label: string | null;
  phone_pdt_field_name: string | null;
  secondary_phone: string | null;
  secondary_phone_label: string | null;
  secondary_phone_pdt_field_name: string | null;
  relation: string | null;
  active: boolean;
}

declare module '../../db/schema.ts' {
  interface DB {
    contacts: ContactsTable;
  }
}
