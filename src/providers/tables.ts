import type { Json, JsonWithDefault, Timestamp } from '../db/schema.ts';

/** The providers mechanism's tables (migration 0015), merged into the database's `DB` type. */

export interface ProviderSettingsTable {
  tenant_id: string;
  /** The nil uuid: the tenant's own configuration, for every instance without one. */
  instance_id: string;
  channel: string;
  driver: string;
  /** The options that are not credentials. */
  options: Json<Record<string, unknown>>;
  sealed: string | null;
  updated_at: Timestamp;
  updated_by: string | null;
  updated_by_name: string | null;
}

export interface SandboxMessagesTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  channel: string;
  reference: string | null;
  /** The patient the message is about (migration 0042), null for none. */
  patient_id: string | null;
  from_address: string;
  to_address: string;
  subject: string | null;
  body: string | null;
  attachment_names: JsonWithDefault<string[]>;
  /** ACCEPTED until told otherwise: DELIVERED, BOUNCED or FAILED. */
  status: string;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface DB {
    provider_settings: ProviderSettingsTable;
    sandbox_messages: SandboxMessagesTable;
  }
}
