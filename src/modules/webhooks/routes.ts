import { tenantContextOf } from '../../http/context.ts';
import { DataAndMeta } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, TenantParams } from '../../wire/schemas.ts';
import {
  auditWebhook,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookViews,
  retryDelivery,
  rotateSecret,
  updateWebhook,
} from './operations.ts';
import {
  AuditWebhookQuery,
  Delivery,
  DeliveryAttempt,
  DeliveryParams,
  Webhook,
  WebhookInput,
  WebhookListQuery,
  WebhookParams,
  WebhookPatch,
  WebhookWithSecret,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Webhooks'];

const delivery =
  'Each event is POSTed as JSON to the URL, at least once and in order per record, signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`, `webhook-signature`); a 2xx within 10 s delivers it, anything else is retried with exponential backoff (5 s doubling to 4 h, 16 attempts), then the delivery is FAILED and its job DEAD (`/{tenantName}/admin/jobs?state=DEAD`). URLs must be http(s) and reach public addresses only (CAIRN_WEBHOOKS_ALLOW_PRIVATE lifts that), checked at every redirect.';

/** DECISIONS §9: subscriptions by admin route (the formation declares others), and the audit of every attempt. */
const webhookRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/webhooks',
    {
      config: needs('WEBHOOK_READ'),
      schema: {
        tags,
        summary: 'List webhook subscriptions (data and meta), by name',
        description: delivery,
        params: TenantParams,
        querystring: WebhookListQuery,
        response: { 200: DataAndMeta(Webhook), ...errors },
      },
    },
    async (request) => {
      const { page, size, ...query } = request.query;
      return listWebhookViews(tenantContextOf(request), query, { page, size });
    },
  );

  app.post(
    '/:tenantName/admin/webhooks',
    {
      config: needs('WEBHOOK_WRITE'),
      schema: {
        tags,
        summary: 'Subscribe a URL to events; the answer holds the signing secret, shown this once',
        description: `Empty or absent \`instances\`, \`eventEntities\` and \`eventSubtypes\` mean all; an event must pass all three. ${delivery}`,
        params: TenantParams,
        body: WebhookInput,
        response: { 201: WebhookWithSecret, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const created = await createWebhook(tenantContextOf(request), request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/:tenantName/admin/webhooks/:webhookId',
    {
      config: needs('WEBHOOK_READ'),
      schema: {
        tags,
        summary: 'A webhook subscription (never its secret)',
        params: WebhookParams,
        response: { 200: Webhook, ...errors },
      },
    },
    async (request) => getWebhook(tenantContextOf(request), request.params.webhookId),
  );

  app.patch(
    '/:tenantName/admin/webhooks/:webhookId',
    {
      config: needs('WEBHOOK_WRITE'),
      schema: {
        tags,
        summary: 'Change a subscription (the keys given); a formation-declared one is 409 WEBHOOK_FROM_FORMATION',
        params: WebhookParams,
        body: WebhookPatch,
        response: { 200: Webhook, ...errors, 409: ErrorBody },
      },
    },
    async (request) => updateWebhook(tenantContextOf(request), request.params.webhookId, request.body),
  );

  app.delete(
    '/:tenantName/admin/webhooks/:webhookId',
    {
      config: needs('WEBHOOK_WRITE'),
      schema: {
        tags,
        summary: 'Delete a subscription: nothing more is sent to it (deliveries under way end FAILED, unsent); its audit stays',
        params: WebhookParams,
        response: { 200: EmptyBody, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await deleteWebhook(tenantContextOf(request), request.params.webhookId);
      return reply.send();
    },
  );

  app.post(
    '/:tenantName/admin/webhooks/:webhookId/secret',
    {
      config: needs('WEBHOOK_WRITE'),
      schema: {
        tags,
        summary: 'Replace the signing secret; the answer holds the new one, shown this once',
        description:
          "Deliveries from now on, retries included, are signed with the new secret. A formation-declared webhook's secret is made at publish and never shown: rotate it to learn one.",
        params: WebhookParams,
        response: { 200: WebhookWithSecret, ...errors },
      },
    },
    async (request) => rotateSecret(tenantContextOf(request), request.params.webhookId),
  );

  app.post(
    '/:tenantName/admin/webhooks/:webhookId/deliveries/:deliveryId/retry',
    {
      config: needs('WEBHOOK_WRITE'),
      schema: {
        tags,
        summary: 'Send a delivery again now (202: queued); its attempts are logged as any other',
        description:
          "A delivery waiting out its backoff is made due now; one given up (FAILED, its job DEAD) or delivered is queued again, after the record's deliveries still under way.",
        params: DeliveryParams,
        response: { 202: Delivery, ...errors },
      },
    },
    async (request, reply) => {
      const { webhookId, deliveryId } = request.params;
      return reply.code(202).send(await retryDelivery(tenantContextOf(request), webhookId, deliveryId));
    },
  );

  app.get(
    '/:tenantName/admin/audit-webhook',
    {
      config: needs('AUDIT_READ'),
      schema: {
        tags: ['Audit'],
        summary: 'Every webhook delivery attempt, newest first (data and meta)',
        description:
          "`status` is SENT while the request is out, then DELIVERED (2xx) or FAILED; `statusCode` is the receiver's answer as production names it (`OK`, `BAD_REQUEST`, `INTERNAL_SERVER_ERROR`, …), `error` why there was none (`TIMEOUT`, `CONNECTION_FAILED`, `ADDRESS_NOT_ALLOWED`).",
        params: TenantParams,
        querystring: AuditWebhookQuery,
        response: { 200: DataAndMeta(DeliveryAttempt), ...errors },
      },
    },
    async (request) => auditWebhook(tenantContextOf(request), request.query),
  );
};

export default webhookRoutes;
