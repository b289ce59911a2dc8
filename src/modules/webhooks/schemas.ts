import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, Nullable, TenantParams, Uuid } from '../../wire/schemas.ts';

/** The webhooks area's wire contract (DECISIONS §9, §7 `audit-webhook`). */

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' });
const Names = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200, description });

const subscription = {
  title: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL the events are POSTed to' }),
  instances: Type.Optional(Nullable(Names('Instance names whose events it receives; empty or absent: all'))),
  eventEntities: Type.Optional(Nullable(Names('Entities it receives (PATIENT, TASK, ...); empty or absent: all'))),
  eventSubtypes: Type.Optional(Nullable(Names('Subtypes it receives (TASK_STATUS_CHANGED, ...); empty or absent: all'))),
};

export const WebhookInput = Type.Object({ name: Name, ...subscription });
export const WebhookPatch = Type.Partial(Type.Object({ name: Name, ...subscription }));
export type WebhookInputBody = Static<typeof WebhookInput>;
export type WebhookPatchBody = Static<typeof WebhookPatch>;

export const Webhook = Type.Object({
  id: Uuid,
  name: Type.String(),
  title: Nullable(Type.String()),
  url: Type.String(),
  instances: Type.Array(Type.String()),
  eventEntities: Type.Array(Type.String()),
  eventSubtypes: Type.Array(Type.String()),
  source: Type.Union([Type.Literal('API'), Type.Literal('FORMATION')], {
    description: 'API: made through these routes; FORMATION: declared by an instance formation, changed there',
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
});
export type WebhookView = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Intersect([
  Webhook,
  Type.Object({
    secret: Type.String({
      description:
        'The signing secret (whsec_…), shown this once: keep it to verify the webhook-signature header (Standard Webhooks)',
    }),
  }),
]);

export const WebhookParams = Type.Object({ ...TenantParams.properties, webhookId: Uuid });
export const DeliveryParams = Type.Object({ ...WebhookParams.properties, deliveryId: Uuid });

export const WebhookListQuery = Type.Object({
  ...PagingQuery,
  source: Type.Optional(Type.Union([Type.Literal('API'), Type.Literal('FORMATION')])),
});

export const attemptStatuses = ['SENT', 'DELIVERED', 'FAILED'] as const;

export const DeliveryAttempt = Type.Object({
  id: Uuid,
  webhookId: Uuid,
  webhookName: Nullable(Type.String({ description: 'null once the webhook is deleted' })),
  deliveryId: Uuid,
  eventId: Uuid,
  eventEntity: Type.String(),
  eventSubtype: Type.String(),
  recordId: Nullable(Type.String()),
  url: Type.String(),
  status: Type.Enum(attemptStatuses, { description: 'SENT while the request is out; DELIVERED on a 2xx; FAILED otherwise' }),
  statusCode: Nullable(
    Type.String({ description: "The receiver's answer as production names it: OK, BAD_REQUEST, INTERNAL_SERVER_ERROR, …" }),
  ),
  httpStatus: Nullable(Type.Integer()),
  error: Nullable(
    Type.String({ description: 'Without an answer: TIMEOUT, CONNECTION_FAILED, ADDRESS_NOT_ALLOWED, URL_NOT_ALLOWED, …' }),
  ),
  attempt: Type.Integer({ description: '1 for the first attempt of the delivery' }),
  latencyMs: Nullable(Type.Integer()),
  createdAt: DateTime,
  finishedAt: Nullable(DateTime),
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The event as it was sent' }),
});
export type DeliveryAttemptView = Static<typeof DeliveryAttempt>;

export const AuditWebhookQuery = Type.Object({
  ...PagingQuery,
  webhookId: Type.Optional(Uuid),
  deliveryId: Type.Optional(Uuid),
  status: Type.Optional(Type.Enum(attemptStatuses)),
  from: Type.Optional(DateTime),
  to: Type.Optional(DateTime),
});
export type AuditWebhookQueryInput = Static<typeof AuditWebhookQuery>;

export const Delivery = Type.Object({
  id: Uuid,
  webhookId: Uuid,
  eventId: Uuid,
  eventSubtype: Type.String(),
  state: Type.Union([Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED')]),
  attempts: Type.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
