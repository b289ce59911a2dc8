import { eachPatient, itsPatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import type { SandboxOutcome } from '../../providers/channels.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { injectInbound, sandboxOutbox, settleSandboxMessage } from './operations.ts';
import { InboundBody, InboundResult, MessageParams, OutboxQuery, SandboxMessage, SettleBody } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Sandbox'];
const base = '/:tenantName/:instanceName/sandbox';
const exists =
  "These routes exist for a channel only while the instance's provider for it is the sandbox (the default; `/{tenantName}/admin/providers` sets another), and answer 404 SANDBOX_NOT_IN_USE otherwise.";

/** The sandbox of outside services (issue 16), also `cairn sandbox ...`. */
const sandboxRoutes: AreaPlugin = async (app) => {
  app.get(
    `${base}/outbox`,
    {
      // Patients' addresses and messages: the access log names each message's patient.
      config: needs('SANDBOX_MANAGE', { discloses: eachPatient('MESSAGE', 'content', 'patientId') }),
      schema: {
        tags,
        summary: 'What the sandbox was given to send, newest first (page object)',
        description: `Each message with its channel, addresses, subject, body, attachment names and status (ACCEPTED until told otherwise). ${exists}`,
        params: InstanceParams,
        querystring: OutboxQuery,
        response: { 200: PageObject(SandboxMessage), ...errors },
      },
    },
    async (request) => {
      const { page, size, channel, status } = request.query;
      const { content, total } = await sandboxOutbox(contextOf(request), { channel, status }, { page, size });
      return pageObject(content, total, { page, size }, false);
    },
  );

  const outcomes: [SandboxOutcome, string][] = [
    ['deliver', 'delivered (an email or SMS becomes DELIVERED, a call COMPLETED)'],
    ['bounce', 'refused by the receiving side (an email becomes REJECTED, an SMS UNDELIVERED, a call NO_ANSWER; with the error)'],
    ['fail', 'not sent by the provider (FAILED, with the error)'],
  ];
  for (const [action, meaning] of outcomes) {
    app.post(
      `${base}/outbox/:messageId/${action}`,
      {
        config: needs('SANDBOX_MANAGE', { discloses: itsPatient('MESSAGE', 'patientId') }),
        schema: {
          tags,
          summary: `Tell the sandbox a message was ${meaning}`,
          description: `The record it was sent for hears it as it would hear the vendor's callback. A message is settled once: 409 SANDBOX_MESSAGE_SETTLED after. ${exists}`,
          params: MessageParams,
          body: SettleBody,
          response: { 200: SandboxMessage, ...errors, 409: ErrorBody },
        },
      },
      async (request) => settleSandboxMessage(contextOf(request), request.params.messageId, action, request.body?.error),
    );
  }

  app.post(
    `${base}/inbound`,
    {
      config: needs('SANDBOX_MANAGE', { discloses: itsPatient('MESSAGE', 'patientId') }),
      schema: {
        tags,
        summary: 'Make a message come in, as if through the channel’s provider (201)',
        description: `EMAIL: \`from\` and \`to\` are email addresses, \`message\` the body, \`subject\` the subject; the email lands on the patient (or contact) with that address, else UNRECOGNISED with no patient. SMS, VOICE_CALL and FAX take E.164 numbers. 400 CHANNEL_NOT_AVAILABLE for a channel no area of this server receives yet. ${exists}`,
        params: InstanceParams,
        body: InboundBody,
        response: { 201: InboundResult, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await injectInbound(contextOf(request), request.body)),
  );
};

export default sandboxRoutes;
