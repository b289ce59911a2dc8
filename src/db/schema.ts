import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types for Kysely: the platform's tables (tenancy, formations, audit, patients and the
 * records kernel's). Each area declares its own tables in `modules/<area>/tables.ts`, merged into
 * `DB` there. Column names are the SQL names; the API's names live in each area's schemas.
 */

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A jsonb column: written as a value or as its JSON text; optional on insert when it has a default. */
export type Json<T> = ColumnType<T, string | T, string | T>;
export type JsonWithDefault<T> = ColumnType<T, string | T | undefined, string | T>;
/** A column the database fills in when an insert leaves it out. */
export type WithDefault<T> = ColumnType<T, T | undefined, T>;

export interface ServerSettingsTable {
  name: string;
  value: string;
}

export interface TenantsTable {
  id: string;
  name: string;
  title: string;
  created_at: Timestamp;
}

export interface InstancesTable {
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  current_formation_version: number | null;
  created_at: Timestamp;
}

export interface FormationsTable {
  tenant_id: string;
  instance_id: string;
  version: number;
  document: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
  published_at: Date | null;
  published_by_name: string | null;
}

export interface ApiClientsTable {
  tenant_id: string;
  id: string;
  name: string;
  client_key: string;
  secret_hash: string;
  enabled: Generated<boolean>;
  /** The public keys it signs SMART Backend Services assertions with (a JWK Set), if it registered any. */
  jwks: ColumnType<{ keys: Record<string, unknown>[] } | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiClientKeysTable {
  client_key: string;
  tenant_id: string;
  client_id: string;
}

export type PrincipalType = 'USER' | 'API_CLIENT';
export type GrantType = 'SECURITY_ROLE' | 'SECURITY_POLICY';

export interface AccessGrantsTable {
  tenant_id: string;
  principal_id: string;
  principal_type: PrincipalType;
  instance_id: string;
  grant_type: GrantType;
  name: string;
  primary_role: Generated<boolean>;
  effective_date: Date | null;
  expiration_date: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  tenant_id: string;
  id: string;
  username: string;
  email: string;
  phone: string | null;
  timezone: string | null;
  locale: string;
  first_name: string | null;
  last_name: string | null;
  credentials: string | null;
  terminology_name: string | null;
  enabled: boolean;
  mfa_enabled: boolean;
  status_type: string | null;
  sso_access: boolean;
  password_access: boolean;
  password_hash: string | null;
  user_state: string;
  custom_user_attributes: Json<Record<string, unknown>>;
  allowed_to_receive_calls: boolean;
  seats: string[];
  seat_assign_allowed: boolean;
  admin_access_enabled: boolean;
  audit_security_access_enabled: boolean;
  application_access_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
  deleted_at: Date | null;
}

export interface AuditEventsTable {
  tenant_id: string;
  id: string;
  instance_id: string | null;
  occurred_at: Timestamp;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  entity_type: string;
  entity_id: string | null;
  patient_id: string | null;
  request_id: string | null;
  method: string | null;
  route: string | null;
  changed_fields: string[] | null;
}

/** The access log (http/access-log.ts): an answer that disclosed patient data, or was refused on a patient's record. */
export interface AccessLogTable {
  tenant_id: string;
  id: string;
  occurred_at: Timestamp;
  instance_id: string | null;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  on_behalf_of: string | null;
  client_address: string | null;
  request_id: string | null;
  caller_request_id: string | null;
  operation: string;
  resource_type: string;
  patient_ids: string[];
  record_ids: string[] | null;
  outcome: number;
  matched: number | null;
}

/** The outbox (events/outbox.ts): one row per event, written with the change it reports, deleted once consumed. */
export interface EventsTable {
  tenant_id: string;
  id: string;
  /** Commit order within the database, so consumers read a record's events in the order they happened. */
  seq: Generated<number>;
  instance_id: string | null;
  event_entity: string;
  event_subtype: string;
  record_id: string | null;
  patient_id: string | null;
  actor_type: string;
  actor_id: string | null;
  request_id: string | null;
  occurred_at: Timestamp;
  data: Json<Record<string, unknown>>;
}

export interface PatientTerritory {
  name: string;
  territories: string[];
}

export interface CadenceEntry {
  schedules: { hour: number; minute: number; days: string[]; weekNumbers: number[] }[];
  priority: string;
}

export interface PatientsTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  external_guid: string;
  external_id: string | null;
  mrn: string | null;
  nric: string | null;
  access_code: string | null;
  first_name: string;
  last_name: string;
  middle_name: string | null;
  birth_date: string | null;
  gender: string | null;
  marital_status: string | null;
  primary_language: string | null;
  secondary_language: string | null;
  email: string | null;
  secondary_email: string | null;
  phone: string | null;
  secondary_phone: string | null;
  phone_label: string | null;
  secondary_phone_label: string | null;
  primary_phone_capabilities: WithDefault<string[]>;
  secondary_phone_capabilities: WithDefault<string[]>;
  preferable_instance_phone_id: string | null;
  country: string | null;
  state: string | null;
  city: string | null;
  zip: string | null;
  address_line1: string | null;
  address_line2: string | null;
  timezone: string | null;
  patient_type: string | null;
  notes: string | null;
  cadence: JsonWithDefault<CadenceEntry[]>;
  patient_region: string | null;
  patient_territory: string | null;
  patient_territories: JsonWithDefault<PatientTerritory[]>;
  regions: WithDefault<string[]>;
  territories: WithDefault<string[]>;
  custom_attributes: JsonWithDefault<Record<string, unknown>>;
  search_text: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
}

/** Who made and last changed a record; most tables carry these six columns. */
export interface Authorship {
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
}

export interface PdtRecordsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  pdt_name: string;
  values: Json<Record<string, unknown>>;
  full_value: string;
  deleted: boolean;
  external_guid: string;
  external_id: string | null;
}

export interface CdtRecordsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  patient_id: string;
  cdt_name: string;
  /** The formation version the record was last written under. */
  version: number | null;
  values: Json<Record<string, unknown>>;
  external_guid: string;
  external_id: string | null;
  source_type: string | null;
  source_id: string | null;
  source_name: string | null;
}

export interface DictionaryRecordsTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  dictionary_name: string;
  values: Json<Record<string, unknown>>;
  full_value: string;
  deleted: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DB {
  server_settings: ServerSettingsTable;
  tenants: TenantsTable;
  instances: InstancesTable;
  formations: FormationsTable;
  api_clients: ApiClientsTable;
  api_client_keys: ApiClientKeysTable;
  access_grants: AccessGrantsTable;
  users: UsersTable;
  audit_events: AuditEventsTable;
  access_log: AccessLogTable;
  events: EventsTable;
  patients: PatientsTable;
  pdt_records: PdtRecordsTable;
  cdt_records: CdtRecordsTable;
  dictionary_records: DictionaryRecordsTable;
}

export type Row<T extends keyof DB> = Selectable<DB[T]>;
export type NewRow<T extends keyof DB> = Insertable<DB[T]>;
export type RowUpdate<T extends keyof DB> = Updateable<DB[T]>;
