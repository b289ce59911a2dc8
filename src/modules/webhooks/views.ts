import type { DeliveryAttemptView, WebhookView } from './schemas.ts';
import type { AttemptListRow, DeliveryRow, WebhookRow } from './store.ts';

/** Instance id → name, to show a subscription's instances by name. */
export type InstanceNames = ReadonlyMap<string, string>;

/** A subscription as the API shows it: never its secret. */
export function webhookView(row: WebhookRow, names: InstanceNames): WebhookView {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    url: row.url,
    instances: row.instance_ids.flatMap((id) => names.get(id) ?? []),
    eventEntities: row.event_entities,
    eventSubtypes: row.event_subtypes,
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
  };
}

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventSubtype: row.event_subtype,
    state: row.state,
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function attemptView(row: AttemptListRow): DeliveryAttemptView {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    webhookName: row.webhook_name,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventEntity: row.event_entity,
    eventSubtype: row.event_subtype,
    recordId: row.record_id,
    url: row.url,
    status: row.status,
    statusCode: row.status_code,
    httpStatus: row.http_status,
    error: row.error,
    attempt: row.attempt,
    latencyMs: row.latency_ms,
    createdAt: row.started_at,
    finishedAt: row.finished_at,
    payload: JSON.parse(row.body) as Record<string, unknown>,
  };
}
