import type { Authorship, Json, Timestamp } from '../../db/schema.ts';

/** The invoices area's tables (migration 0021), merged into the database's `DB` type. */

export interface InvoiceNumbersTable {
  tenant_id: string;
  last: string | number;
}

/** An invoice's line, as stored in `items`. */
export interface InvoiceItemJson {
  id: string;
  description: string;
  quantity: number;
  unitAmount: number;
  serviceCode: string;
  serviceModifiers: string[];
}

export interface InvoicesTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  /** bigint: read back as text. */
  number: string | number;
  custom_invoice_id: string;
  status: string;
  status_message: string | null;
  billing_type: string;
  payment_type: string;
  currency: string;
  invoice_date: Timestamp;
  due_date: Timestamp;
  care_member_id: string | null;
  care_member_name: string | null;
  patient_id: string;
  patient_name: string;
  amount: string | number;
  amount_paid: string | number;
  encounter_id: string;
  related_encounters: string[];
  items: Json<InvoiceItemJson[]>;
  /** The payment provider's id of the charge that paid it. */
  external_id: string | null;
  paid_at: Timestamp | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    invoice_numbers: InvoiceNumbersTable;
    invoices: InvoicesTable;
  }
}
