import { sql } from 'kysely';
import { parameterBatches } from '../../db/batches.ts';
import { crossTenant } from '../../db/cross-tenant.ts';
import { uuidv7 } from '../../db/ids.ts';
import { tryLockKey } from '../../db/locks.ts';
import type { NewRow } from '../../db/schema.ts';
import { type EventRow, eventBody } from '../../events/outbox.ts';
import type { Services } from '../../http/services.ts';
import { listInstances } from '../../tenancy/tenancy.ts';
import { jobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { subscriptionsOf, type WebhookRow } from './store.ts';

/** How many events of a tenant one relay write takes. */
const BATCH = 500;

export const DELIVER = 'webhooks.deliver';

/**
 * The outbox's consumer: takes a tenant's new events in commit order (deleting them), and turns
 * each into one delivery per subscription that wants it, with a `webhooks.deliver` job keyed by
 * subscription and record, so a record's events reach a receiver in order (a failing delivery
 * holds back the record's later ones until it succeeds or is dead). One relay per tenant at a
 * time; answers the events taken.
 *
 * Given `only` (the tenants whose writes or the job workers' sweep signalled events), each is
 * looked at with statements pinned to it: on Citus its worker alone, so one worker down holds back
 * its own tenants and no other. Without, the tenants with events are read across tenants first.
 */
export async function relayEvents(services: Services, only?: readonly string[]): Promise<number> {
  const tenants = only ?? (await pendingTenants(services));
  let relayed = 0;
  let failure: unknown;
  for (const tenantId of tenants) {
    try {
      relayed += await relayTenant(services, tenantId);
    } catch (error) {
      // The others are relayed all the same; the failure is the run's (logged), and the sweep comes back.
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  return relayed;
}

async function pendingTenants(services: Services): Promise<string[]> {
  const { rows } = await sql<{ tenant_id: string }>`${sql.raw(crossTenant('pending-events'))}
    SELECT DISTINCT tenant_id FROM events LIMIT 1000`.execute(services.db);
  return rows.map((row) => row.tenant_id);
}

async function relayTenant(services: Services, tenantId: string): Promise<number> {
  // A wake-up names tenants that may have nothing left (another node relayed them): one look.
  const waiting = await services.db.selectFrom('events').select('seq').where('tenant_id', '=', tenantId).limit(1).execute();
  if (waiting.length === 0) return 0;
  // Most tenants subscribe to nothing: their events go in one statement, with no transaction.
  const { numDeletedRows } = await services.db
    .deleteFrom('events')
    .where('tenant_id', '=', tenantId)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhooks').select('id').where('tenant_id', '=', tenantId))))
    .executeTakeFirst();
  if (numDeletedRows > 0n) return Number(numDeletedRows);
  const ctx = await jobContext(services, tenantId);
  if (!ctx) return 0;
  let relayed = 0;
  for (;;) {
    const taken = await write(ctx, async (w) => {
      // Another node relaying this tenant now takes these events too; it goes on until none are left.
      if (!(await tryLockKey(w.db, `${tenantId}/webhooks/relay`))) return 0;
      // Taken and gone in one statement; the lock keeps other relays of the tenant away meanwhile.
      const { rows } = await sql<EventRow>`
        DELETE FROM events WHERE tenant_id = ${tenantId} AND seq IN (
          SELECT seq FROM events WHERE tenant_id = ${tenantId} ORDER BY seq LIMIT ${BATCH})
        RETURNING *`.execute(w.db);
      if (rows.length === 0) return 0;
      const events = rows.sort((a, b) => a.seq - b.seq);
      const subscriptions = await subscriptionsOf(w.db, [tenantId]);
      const wanted = events.map((event) => subscriptions.filter((candidate) => wants(candidate, event)));
      if (wanted.every((wanting) => wanting.length === 0)) return events.length;
      const instanceNames = new Map((await listInstances(w.db, tenantId)).map((instance) => [instance.id, instance.name]));
      const deliveries: NewRow<'webhook_deliveries'>[] = [];
      for (const [index, event] of events.entries()) {
        const wanting = wanted[index]!;
        if (wanting.length === 0) continue;
        const body = JSON.stringify(
          eventBody(event, { tenant: ctx.tenant.name, instance: instanceNames.get(event.instance_id ?? '') ?? null }),
        );
        for (const subscription of wanting) {
          const id = uuidv7();
          deliveries.push({
            tenant_id: tenantId,
            id,
            webhook_id: subscription.id,
            event_id: event.id,
            event_entity: event.event_entity,
            event_subtype: event.event_subtype,
            record_id: event.record_id,
            body,
            state: 'PENDING',
            attempts: 0,
            created_at: w.now,
            updated_at: w.now,
          });
          w.enqueue({
            kind: DELIVER,
            payload: { deliveryId: id },
            key: deliveryKey({ webhook_id: subscription.id, record_id: event.record_id, event_id: event.id }),
            instanceId: event.instance_id,
          });
        }
      }
      for (const batch of parameterBatches(deliveries)) await w.db.insertInto('webhook_deliveries').values(batch).execute();
      return events.length;
    });
    relayed += taken;
    if (taken < BATCH) return relayed;
  }
}

/** A delivery's job key: a subscription's deliveries of one record go one at a time, in order. */
export function deliveryKey(delivery: { webhook_id: string; record_id: string | null; event_id: string }): string {
  return `${delivery.webhook_id}/${delivery.record_id ?? delivery.event_id}`;
}

/** A subscription wants an event after its making, of its instances (all when none named), entities and subtypes. */
export function wants(subscription: WebhookRow, event: EventRow): boolean {
  const within = (list: readonly string[], value: string | null) => list.length === 0 || (value !== null && list.includes(value));
  return (
    event.seq > subscription.after_seq &&
    within(subscription.instance_ids, event.instance_id) &&
    within(subscription.event_entities, event.event_entity) &&
    within(subscription.event_subtypes, event.event_subtype)
  );
}
