import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the webhooks area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const webhooksPermissions = {
  WEBHOOK_READ: 'Read webhook subscriptions and their deliveries',
  WEBHOOK_WRITE: 'Create, change and delete webhook subscriptions, rotate their secrets and redeliver',
} as const;

export const webhooksErrors = {
  WEBHOOK_NOT_FOUND: { status: 404, componentType: 'WEBHOOK', message: 'Webhook not found' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, componentType: 'WEBHOOK', message: 'Webhook delivery not found' },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    componentType: 'WEBHOOK',
    message: 'Webhooks post only to http(s) addresses outside loopback, link-local and private networks',
  },
  WEBHOOK_FROM_FORMATION: {
    status: 409,
    componentType: 'WEBHOOK',
    message: "This webhook is declared by an instance's formation: change it there",
  },
} as const;

/** The events its records are (DECISIONS §9). */
export const webhooksEvents = {
  WEBHOOK: {
    description: 'Webhook subscriptions (their secrets never appear in events)',
    subtypes: ['WEBHOOK_CREATED', 'WEBHOOK_UPDATED', 'WEBHOOK_DELETED'],
  },
} as const satisfies EventCatalog;

export const webhooksAuditActions = {
  WEBHOOK_CREATED: { description: 'A webhook subscription was created', events: ['WEBHOOK_CREATED'] },
  WEBHOOK_UPDATED: { description: 'A webhook subscription was changed', events: ['WEBHOOK_UPDATED'] },
  WEBHOOK_DELETED: { description: 'A webhook subscription was deleted', events: ['WEBHOOK_DELETED'] },
  WEBHOOK_SECRET_ROTATED: { description: "A webhook's signing secret was replaced", events: ['WEBHOOK_UPDATED'] },
  WEBHOOK_DELIVERY_RETRIED: {
    description: 'An administrator asked for a delivery to be sent again',
    events: [],
  },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof webhooksPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof webhooksErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof webhooksAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof webhooksEvents> {}
}
