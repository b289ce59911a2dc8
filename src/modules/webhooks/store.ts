import { type Kysely, sql } from 'kysely';
import type { DB, NewRow, Row } from '../../db/schema.ts';
import type { Writing } from '../../events/work.ts';
import { applySort, offsetOf, type Paging, type SortKey } from '../../http/pagination.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { AuditWebhookQueryInput } from './schemas.ts';
import type { AttemptStatus } from './tables.ts';

/** The webhooks area's SQL: subscriptions, deliveries and attempts, each query naming the tenant. */

export type WebhookRow = Row<'webhooks'>;
export type DeliveryRow = Row<'webhook_deliveries'>;
export type AttemptRow = Row<'webhook_attempts'>;

export function findWebhook(db: Kysely<DB>, tenantId: string, id: string, forUpdate = false) {
  let query = db.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function listWebhooks(
  db: Kysely<DB>,
  tenantId: string,
  source: 'API' | 'FORMATION' | undefined,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: WebhookRow[]; total: number }> {
  let base = db.selectFrom('webhooks').where('tenant_id', '=', tenantId);
  if (source) base = base.where('source', '=', source);
  const [rows, count] = await Promise.all([
    applySort(base.selectAll(), sort, [{ column: 'name', direction: 'asc' }], 'id')
      .limit(paging.size)
      .offset(offsetOf(paging))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Every subscription of the tenants given, for the relay (a tenant has a handful). */
export function subscriptionsOf(db: Kysely<DB>, tenantIds: readonly string[]): Promise<WebhookRow[]> {
  if (tenantIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhooks').selectAll().where('tenant_id', 'in', tenantIds).execute();
}

/**
 * A new subscription, which receives the events the outbox numbers after this moment: the
 * sequence's last value now (events still uncommitted below it happened alongside, not after).
 * Read first, then written as a value: Citus refuses a sub-query inside an INSERT. (On Citus the
 * outbox's numbers come from the coordinator's sequence, which every node writes through.)
 */
export async function insertWebhook(w: Writing, row: Omit<NewRow<'webhooks'>, 'after_seq'>): Promise<WebhookRow> {
  const { rows } = await sql<{
    seq: number;
  }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM events_seq_seq`.execute(w.db);
  return w.db
    .insertInto('webhooks')
    .values({ ...row, after_seq: Number(rows[0]?.seq ?? 0) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateWebhook(w: Writing, row: WebhookRow, set: Partial<NewRow<'webhooks'>>): Promise<WebhookRow> {
  return w.db
    .updateTable('webhooks')
    .set({ ...set, ...w.updated() })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWebhook(db: Kysely<DB>, row: WebhookRow): Promise<void> {
  await db.deleteFrom('webhooks').where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute();
}

export function findDelivery(db: Kysely<DB>, tenantId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface AttemptToSend {
  attempt: number;
  deliveryId: string;
  webhookId: string;
  eventId: string;
  body: string;
  url: string;
  secret: string;
}

/**
 * An attempt begins, in one statement (on Citus on the tenant's worker alone): the delivery
 * (unless already delivered) is counted, its webhook read, and the attempt logged as SENT with its
 * number. Undefined when there is nothing to send: no such delivery, delivered already (a job run
 * again after its process died), or its webhook deleted (then a second statement makes the delivery
 * FAILED: nobody is left to deliver to).
 */
export async function startAttempt(
  db: Kysely<DB>,
  tenantId: string,
  deliveryId: string,
  attemptId: string,
  at: Date,
): Promise<AttemptToSend | undefined> {
  // No CTE is read by another part of the statement: on Citus that would make it a sub-plan whose
  // result goes to every worker (and its commit a 2PC over them all), so a delivery would need
  // workers that hold nothing of its tenant. The attempt's number is read from the statement's
  // snapshot: one run at a time holds the delivery's job, so no other run moves the count meanwhile.
  const { rows } = await sql<AttemptToSend>`
    WITH logged AS (
      INSERT INTO webhook_attempts (tenant_id, id, delivery_id, webhook_id, attempt, url, status, started_at)
      SELECT ${tenantId}, ${attemptId}, d.id, d.webhook_id, d.attempts + 1, w.url, 'SENT', ${at}
      FROM webhook_deliveries d JOIN webhooks w ON w.tenant_id = ${tenantId} AND w.id = d.webhook_id
      WHERE d.tenant_id = ${tenantId} AND d.id = ${deliveryId} AND d.state <> 'DELIVERED')
    UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = ${at}
    FROM webhooks w
    WHERE d.tenant_id = ${tenantId} AND d.id = ${deliveryId} AND d.state <> 'DELIVERED'
      AND w.tenant_id = ${tenantId} AND w.id = d.webhook_id
    RETURNING d.attempts AS attempt, d.id AS "deliveryId", d.webhook_id AS "webhookId", d.event_id AS "eventId",
      d.body, w.url, w.secret`.execute(db);
  if (rows[0]) return rows[0];
  // Its subscription is gone: the delivery fails (its attempt counted).
  await sql`UPDATE webhook_deliveries SET attempts = attempts + 1, updated_at = ${at}, state = 'FAILED'
    WHERE tenant_id = ${tenantId} AND id = ${deliveryId} AND state <> 'DELIVERED'
      AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.tenant_id = ${tenantId} AND w.id = webhook_deliveries.webhook_id)`.execute(
    db,
  );
  return undefined;
}

export interface AttemptOutcome {
  status: Exclude<AttemptStatus, 'SENT'>;
  statusCode: string | null;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  finishedAt: Date;
  /** The delivery's last attempt: a failure makes it FAILED. */
  last: boolean;
}

/**
 * An attempt ends; a 2xx makes its delivery DELIVERED, a last failure FAILED; `also` is one more
 * CTE to run with it (the job's own end): one statement.
 */
export async function finishAttempt(
  db: Kysely<DB>,
  tenantId: string,
  attemptId: string,
  deliveryId: string,
  outcome: AttemptOutcome,
) {
  const state = outcome.status === 'DELIVERED' ? 'DELIVERED' : outcome.last ? 'FAILED' : null;
  // The delivery's own state moves only when it is settled: a CTE left out, not one whose WHERE is
  // a constant false (Citus then skips the whole statement).
  const delivery =
    state === null
      ? sql``
      : sql`WITH ended AS (
          UPDATE webhook_deliveries SET state = ${state}, updated_at = ${outcome.finishedAt}
          WHERE tenant_id = ${tenantId} AND id = ${deliveryId})`;
  await sql`${delivery}
    UPDATE webhook_attempts SET status = ${outcome.status}, status_code = ${outcome.statusCode},
      http_status = ${outcome.httpStatus}, error = ${outcome.error}, latency_ms = ${outcome.latencyMs},
      finished_at = ${outcome.finishedAt}
    WHERE tenant_id = ${tenantId} AND id = ${attemptId}`.execute(db);
}

export type AttemptListRow = AttemptRow & {
  webhook_name: string | null;
  event_id: string;
  event_entity: string;
  event_subtype: string;
  record_id: string | null;
  body: string;
};

/** DECISIONS §7 `audit-webhook`: every attempt, newest first, with its delivery's event. */
export async function listAttempts(
  db: Kysely<DB>,
  tenantId: string,
  query: AuditWebhookQueryInput,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: AttemptListRow[]; total: number }> {
  let base = db.selectFrom('webhook_attempts as a').where('a.tenant_id', '=', tenantId);
  if (query.webhookId) base = base.where('a.webhook_id', '=', query.webhookId);
  if (query.deliveryId) base = base.where('a.delivery_id', '=', query.deliveryId);
  if (query.status) base = base.where('a.status', '=', query.status);
  if (query.from) base = base.where('a.started_at', '>=', readInstant(query.from));
  if (query.to) base = base.where('a.started_at', '<', readInstant(query.to));
  const [rows, count] = await Promise.all([
    applySort(
      base
        .innerJoin('webhook_deliveries as d', (join) => join.on('d.tenant_id', '=', tenantId).onRef('d.id', '=', 'a.delivery_id'))
        .leftJoin('webhooks as w', (join) => join.on('w.tenant_id', '=', tenantId).onRef('w.id', '=', 'a.webhook_id'))
        .selectAll('a')
        .select(['w.name as webhook_name', 'd.event_id', 'd.event_entity', 'd.event_subtype', 'd.record_id', 'd.body']),
      sort,
      [{ column: 'a.started_at', direction: 'desc' }],
      'a.id',
    )
      .limit(paging.size)
      .offset(offsetOf(paging))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
