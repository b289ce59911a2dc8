import { settingsOf } from '../../config.ts';
import { uuidv7 } from '../../db/ids.ts';
import { entityOf, eventCatalog } from '../../events/outbox.ts';
import type { Work } from '../../events/work.ts';
import type { TenantContext } from '../../http/context.ts';
import { dataAndMeta, type Paging, parseSort } from '../../http/pagination.ts';
import { forgetDeadJobs, hurryJob } from '../../jobs/queue.ts';
import { addressPolicy } from '../../providers/network.ts';
import { listInstances } from '../../tenancy/tenancy.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { checkedUrl, OutboundError } from './outbound.ts';
import { DELIVER, deliveryKey } from './relay.ts';
import type { AuditWebhookQueryInput, WebhookInputBody, WebhookPatchBody } from './schemas.ts';
import { webhookSettings } from './settings.ts';
import { newWebhookSecret } from './signature.ts';
import {
  deleteWebhook as deleteWebhookRow,
  findDelivery,
  findWebhook,
  insertWebhook,
  listAttempts,
  listWebhooks,
  updateWebhook as updateWebhookRow,
  type WebhookRow,
} from './store.ts';
import { attemptView, deliveryView, type InstanceNames, webhookView } from './views.ts';

/** Webhook subscriptions through the admin routes (DECISIONS §9): each write is a unit of work, audited. */

async function instanceNames(ctx: TenantContext): Promise<InstanceNames> {
  return new Map((await listInstances(ctx.db, ctx.tenant.id)).map((instance) => [instance.id, instance.name]));
}

async function requireWebhook(ctx: TenantContext, id: string, db = ctx.db, forUpdate = false): Promise<WebhookRow> {
  const row = await findWebhook(db, ctx.tenant.id, id, forUpdate);
  if (!row) throw new ApiError('WEBHOOK_NOT_FOUND', { webhookId: id });
  return row;
}

/** What the lists sort by (`sort=<field>,<asc|desc>`), each served by an index. */
const sortableWebhookFields = { name: 'name' };
const sortableAttemptFields = { createdAt: 'a.started_at' };

export async function listWebhookViews(
  ctx: TenantContext,
  query: { source?: 'API' | 'FORMATION' | undefined; sort?: string | string[] | undefined },
  paging: Paging,
) {
  const sort = parseSort(query.sort, sortableWebhookFields);
  const [{ rows, total }, names] = await Promise.all([
    listWebhooks(ctx.db, ctx.tenant.id, query.source, paging, sort),
    instanceNames(ctx),
  ]);
  return dataAndMeta(
    rows.map((row) => webhookView(row, names)),
    total,
    paging,
  );
}

export async function getWebhook(ctx: TenantContext, id: string) {
  return webhookView(await requireWebhook(ctx, id), await instanceNames(ctx));
}

/** The subscription's checked values: an allowed URL, and instances, entities and subtypes that exist. */
async function checkedSubscription(ctx: TenantContext, body: WebhookPatchBody) {
  const problems: FieldError[] = [];
  const names = await instanceNames(ctx);
  const ids = new Map([...names].map(([id, name]) => [name, id]));
  const instanceIds = (body.instances ?? []).flatMap((name, index) => {
    const id = ids.get(name);
    if (!id) problems.push({ path: `body.instances.${index}`, message: `no instance "${name}" in this tenant` });
    return id ? [id] : [];
  });
  const entities = [...eventCatalog().keys()];
  for (const [index, entity] of (body.eventEntities ?? []).entries()) {
    if (!entities.includes(entity)) {
      problems.push({ path: `body.eventEntities.${index}`, message: `no event entity "${entity}" (${entities.join(', ')})` });
    }
  }
  for (const [index, subtype] of (body.eventSubtypes ?? []).entries()) {
    try {
      entityOf(subtype);
    } catch {
      problems.push({ path: `body.eventSubtypes.${index}`, message: `no event subtype "${subtype}"` });
    }
  }
  if (problems.length > 0) throw validationError(problems);
  if (body.url !== undefined) checkUrl(ctx, body.url);
  return { names, instanceIds };
}

function checkUrl(ctx: TenantContext, url: string): void {
  try {
    checkedUrl(url, addressPolicy(settingsOf(ctx.services.config, webhookSettings).allowPrivate));
  } catch (error) {
    if (error instanceof OutboundError) throw new ApiError('WEBHOOK_URL_NOT_ALLOWED', { reason: error.code });
    throw error;
  }
}

function changed(
  w: Work,
  action: 'WEBHOOK_CREATED' | 'WEBHOOK_UPDATED' | 'WEBHOOK_DELETED' | 'WEBHOOK_SECRET_ROTATED',
  row: WebhookRow,
  changedFields?: string[],
) {
  w.changed({ action, entityType: 'WEBHOOK', entityId: row.id, ...(changedFields ? { changedFields } : {}) });
}

/** POST: answers the subscription with its secret, the only time the secret is shown. */
export async function createWebhook(ctx: TenantContext, body: WebhookInputBody) {
  const { names, instanceIds } = await checkedSubscription(ctx, body);
  const secret = newWebhookSecret();
  const row = await write(ctx, async (w) => {
    const row = await insertWebhook(w, {
      tenant_id: ctx.tenant.id,
      id: uuidv7(),
      name: body.name,
      title: body.title ?? null,
      url: body.url,
      instance_ids: instanceIds,
      event_entities: body.eventEntities ?? [],
      event_subtypes: body.eventSubtypes ?? [],
      secret,
      source: 'API',
      formation_instance_id: null,
      ...w.created(),
    });
    changed(w, 'WEBHOOK_CREATED', row);
    return row;
  });
  return { ...webhookView(row, names), secret };
}

/** A formation's webhooks are changed in the formation, not here. */
function fromApi(row: WebhookRow): WebhookRow {
  if (row.source === 'FORMATION') throw new ApiError('WEBHOOK_FROM_FORMATION', { webhookId: row.id, name: row.name });
  return row;
}

export async function updateWebhook(ctx: TenantContext, id: string, body: WebhookPatchBody) {
  const { names, instanceIds } = await checkedSubscription(ctx, body);
  const row = await write(ctx, async (w) => {
    const existing = fromApi(await requireWebhook(ctx, id, w.db, true));
    const has = (key: keyof WebhookPatchBody) => Object.hasOwn(body, key);
    const updated = await updateWebhookRow(w, existing, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(has('title') ? { title: body.title ?? null } : {}),
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(has('instances') ? { instance_ids: instanceIds } : {}),
      ...(has('eventEntities') ? { event_entities: body.eventEntities ?? [] } : {}),
      ...(has('eventSubtypes') ? { event_subtypes: body.eventSubtypes ?? [] } : {}),
    });
    changed(w, 'WEBHOOK_UPDATED', updated, Object.keys(body));
    return updated;
  });
  return webhookView(row, names);
}

/** Deleting a subscription stops its deliveries; what it was sent stays in the audit. */
export async function deleteWebhook(ctx: TenantContext, id: string): Promise<void> {
  await write(ctx, async (w) => {
    const row = fromApi(await requireWebhook(ctx, id, w.db, true));
    await deleteWebhookRow(w.db, row);
    changed(w, 'WEBHOOK_DELETED', row);
  });
}

/** A new secret, answered once; deliveries from now on are signed with it (a formation's webhook's too). */
export async function rotateSecret(ctx: TenantContext, id: string) {
  const secret = newWebhookSecret();
  const row = await write(ctx, async (w) => {
    const existing = await requireWebhook(ctx, id, w.db, true);
    const updated = await updateWebhookRow(w, existing, { secret });
    changed(w, 'WEBHOOK_SECRET_ROTATED', updated);
    return updated;
  });
  return { ...webhookView(row, await instanceNames(ctx)), secret };
}

/** Sends a delivery again now, whatever became of it (an answer 202: it is queued, not yet sent). */
export async function retryDelivery(ctx: TenantContext, webhookId: string, deliveryId: string) {
  const webhook = await requireWebhook(ctx, webhookId);
  const delivery = await findDelivery(ctx.db, ctx.tenant.id, deliveryId);
  if (!delivery || delivery.webhook_id !== webhook.id)
    throw new ApiError('WEBHOOK_DELIVERY_NOT_FOUND', { webhookId, deliveryId });
  await write(ctx, async (w) => {
    // A delivery waiting out its backoff is sent now; otherwise it is queued again, after the
    // record's deliveries still under way (two sends of one delivery never run at once), and a
    // DEAD job of it goes, as the new one redoes its work.
    const hurried = await hurryJob(w.db, ctx.tenant.id, DELIVER, { deliveryId: delivery.id }, w.now);
    if (!hurried) await forgetDeadJobs(w.db, ctx.tenant.id, DELIVER, { deliveryId: delivery.id });
    await w.db
      .updateTable('webhook_deliveries')
      .set({ state: 'PENDING', updated_at: w.now })
      .where('tenant_id', '=', ctx.tenant.id)
      .where('id', '=', delivery.id)
      .execute();
    if (!hurried) w.enqueue({ kind: DELIVER, payload: { deliveryId: delivery.id }, key: deliveryKey(delivery) });
    w.changed({ action: 'WEBHOOK_DELIVERY_RETRIED', entityType: 'WEBHOOK_DELIVERY', entityId: delivery.id });
  });
  return deliveryView({ ...delivery, state: 'PENDING' });
}

/** DECISIONS §7: every delivery attempt, newest first (data and meta). */
export async function auditWebhook(ctx: TenantContext, query: AuditWebhookQueryInput) {
  const paging = { page: query.page, size: query.size };
  const { rows, total } = await listAttempts(ctx.db, ctx.tenant.id, query, paging, parseSort(query.sort, sortableAttemptFields));
  return dataAndMeta(rows.map(attemptView), total, paging);
}
