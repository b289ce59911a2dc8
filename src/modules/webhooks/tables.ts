import type { Timestamp } from '../../db/schema.ts';

/** The webhooks area's tables (migration 0010), merged into the database's `DB` type. */

export interface WebhooksTable {
  tenant_id: string;
  id: string;
  name: string;
  title: string | null;
  url: string;
  /** Empty: every instance of the tenant. */
  instance_ids: string[];
  event_entities: string[];
  event_subtypes: string[];
  secret: string;
  source: 'API' | 'FORMATION';
  formation_instance_id: string | null;
  after_seq: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
}

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface WebhookDeliveriesTable {
  tenant_id: string;
  id: string;
  webhook_id: string;
  event_id: string;
  event_entity: string;
  event_subtype: string;
  record_id: string | null;
  body: string;
  state: DeliveryState;
  attempts: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AttemptStatus = 'SENT' | 'DELIVERED' | 'FAILED';

export interface WebhookAttemptsTable {
  tenant_id: string;
  id: string;
  delivery_id: string;
  webhook_id: string;
  attempt: number;
  url: string;
  status: AttemptStatus;
  status_code: string | null;
  http_status: number | null;
  error: string | null;
  latency_ms: number | null;
  started_at: Timestamp;
  finished_at: Date | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    webhooks: WebhooksTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
