import { type Static, Type } from 'typebox';
import { uuidv7 } from '../../db/ids.ts';
import { entityOf, eventCatalog } from '../../events/outbox.ts';
import type { Work } from '../../events/work.ts';
import { Title } from '../../formation/schemas.ts';
import type { FormationSection } from '../../formation/sections.ts';
import { uniqueNames } from '../../formation/validate.ts';
import { checkedUrl, OutboundError } from './outbound.ts';
import { newWebhookSecret } from './signature.ts';
import { deleteWebhook, insertWebhook, updateWebhook, type WebhookRow } from './store.ts';

/**
 * DECISIONS §6 `webhooks`: subscriptions an instance's formation declares, for that instance's
 * events. Publishing makes them real (in the webhooks table, source FORMATION): new ones get a
 * secret, never shown (rotate it through the admin route to learn one), changed ones change,
 * removed ones go.
 */
export const FormationWebhook = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
  title: Title,
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  eventEntities: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { description: 'Empty or absent: all' })),
  eventSubtypes: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { description: 'Empty or absent: all' })),
});

type FormationWebhookDefinition = Static<typeof FormationWebhook>;

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    webhooks?: FormationWebhookDefinition[];
  }
}

export const webhooksSection: FormationSection = {
  key: 'webhooks',
  route: 'webhooks',
  schema: Type.Array(FormationWebhook),
  problems(formation, add) {
    const hooks = formation.webhooks ?? [];
    uniqueNames(hooks, 'webhooks', add);
    const entities = new Set(eventCatalog().keys());
    for (const [index, hook] of hooks.entries()) {
      const path = `webhooks.${index}`;
      // The address itself is judged at each delivery, on the node's settings (private networks).
      try {
        checkedUrl(hook.url, () => true);
      } catch (error) {
        if (error instanceof OutboundError) add(`${path}.url`, 'must be an http(s) URL without credentials');
      }
      for (const entity of hook.eventEntities ?? []) {
        if (!entities.has(entity)) add(`${path}.eventEntities`, `no event entity "${entity}"`);
      }
      for (const subtype of hook.eventSubtypes ?? []) {
        try {
          entityOf(subtype);
        } catch {
          add(`${path}.eventSubtypes`, `no event subtype "${subtype}"`);
        }
      }
    }
  },
  published: (w, scope, formation) => registerFormationWebhooks(w, scope, formation.webhooks ?? []),
};

/** The instance's formation webhooks become these, in the publishing write. */
async function registerFormationWebhooks(
  w: Work,
  { tenantId, instanceId }: { tenantId: string; instanceId: string },
  declared: FormationWebhookDefinition[],
): Promise<void> {
  const existing = await w.db
    .selectFrom('webhooks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('formation_instance_id', '=', instanceId)
    .forUpdate()
    .execute();
  const byName = new Map(existing.map((row) => [row.name, row]));
  const changed = (action: 'WEBHOOK_CREATED' | 'WEBHOOK_UPDATED' | 'WEBHOOK_DELETED', row: WebhookRow) =>
    w.changed({ action, entityType: 'WEBHOOK', entityId: row.id });
  for (const hook of declared) {
    const values = {
      title: hook.title ?? null,
      url: hook.url,
      event_entities: hook.eventEntities ?? [],
      event_subtypes: hook.eventSubtypes ?? [],
    };
    const current = byName.get(hook.name);
    byName.delete(hook.name);
    if (!current) {
      const row = await insertWebhook(w, {
        tenant_id: tenantId,
        id: uuidv7(),
        name: hook.name,
        ...values,
        instance_ids: [instanceId],
        secret: newWebhookSecret(),
        source: 'FORMATION',
        formation_instance_id: instanceId,
        ...w.created(),
      });
      changed('WEBHOOK_CREATED', row);
    } else if (
      JSON.stringify(values) !==
      JSON.stringify({
        title: current.title,
        url: current.url,
        event_entities: current.event_entities,
        event_subtypes: current.event_subtypes,
      })
    ) {
      changed('WEBHOOK_UPDATED', await updateWebhook(w, current, values));
    }
  }
  for (const gone of byName.values()) {
    await deleteWebhook(w.db, gone);
    changed('WEBHOOK_DELETED', gone);
  }
}
