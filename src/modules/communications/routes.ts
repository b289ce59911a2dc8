import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { named } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { EmailRecord } from '../email/index.ts';
import { SmsRecord } from '../sms/index.ts';
import { VoiceCall } from '../voice/index.ts';
import { createCommunication, sendCommunication } from './operations.ts';
import { CommunicationAnswer, CommunicationInput, MessageForm, MessageInput, MessageParams } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Communications'];

/** 002 "Communications": the two-step send. */
const communicationRoutes: AreaPlugin = async (app) => {
  app.post(
    '/:tenantName/:instanceName/communications',
    {
      config: needs('COMMUNICATION_SEND'),
      schema: {
        tags,
        summary: 'Step one: a communicationId for a channel and a patient or contact (nothing is stored or sent)',
        description:
          "`patientContactId` is a patient's id or a contact's. SMS and VOICE_CALL go from `instancePhoneId` (the formation's default phone when absent), a phone whose `capabilities` include the channel (400 NO_INSTANCE_PHONE when there is no such phone; checked again at step two) to `patientContactPhoneNumber` (the patient's or contact's phone when absent); EMAIL to `patientContactEmail` (their address when absent); 400 NO_CONTACT_ADDRESS when there is none. The id is signed: a forged or altered one, or one from another instance, is a 400 at step two.",
        params: InstanceParams,
        body: CommunicationInput,
        response: { 200: CommunicationAnswer, ...errors },
      },
    },
    async (request) => createCommunication(contextOf(request), request.body),
  );

  app.post(
    '/:tenantName/:instanceName/:communicationId/messages',
    {
      config: {
        ...needs('COMMUNICATION_SEND', { discloses: named('MESSAGE') }),
        requestBodies: { 'application/json': MessageInput, 'multipart/form-data': MessageForm },
      },
      schema: {
        tags,
        summary: 'Step two: send a message through a communicationId; the SMS, email or call record made (201)',
        description:
          "JSON, or multipart/form-data with the same text fields and files in `attachmentsAsFiles` parts. SMS: `message` (at most 1600 characters, Twilio's limit; or a file; jpg, jpeg, png, pdf, 5 MB in all) and `attachmentsFromTemplate`; EMAIL: `message` and `subject` (both required), `secure`, attachments as for email drafts; VOICE_CALL (JSON only): `recorded`; the calling member's phone rings first, then the patient's (400 NO_CALLER_PHONE for an API client or a user without a phone). Other fields are ignored. The record is stored, then handed to the instance's provider at once: the answer shows what the provider said (ACCEPTED, SENT, DELIVERED). A provider failure answers 500 PROVIDER_FAILED and leaves the record FAILED with the provider's error (DECISIONS §8); a bad id (INVALID_COMMUNICATION_ID) or a missing field (VALIDATION_ERROR) is a 400.",
        params: MessageParams,
        response: { 201: Type.Union([SmsRecord, EmailRecord, VoiceCall]), ...errors, 500: ErrorBody },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await sendCommunication(contextOf(request), request, request.params.communicationId, requestOrigin(request))),
  );
};

export default communicationRoutes;
