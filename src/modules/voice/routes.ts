import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { disclose, named } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { acceptForms, callbackBase, checkedCallback } from '../../http/provider-callbacks.ts';
import { needs } from '../../http/route-access.ts';
import { voiceSlot } from '../../providers/voice/voice.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { fileBytes } from '../files/index.ts';
import { assignCall, downloadRecording, getCall, listUnrecognizedCalls } from './calls.ts';
import { receiveCall } from './inbound.ts';
import { reportCallStatus, reportRecording } from './place.ts';
import { AssignInput, CallParams, RecordingParams, UnrecognizedQuery, VoiceCall } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Voice calls'];
const base = '/:tenantName/:instanceName/unrecognized-patients/voice-calls';
const vendorBase = '/:tenantName/:instanceName/providers/voice/:driver';
const VendorParams = Type.Object({ ...InstanceParams.properties, driver: Type.String({ maxLength: 40 }) });
const Form = Type.Record(Type.String(), Type.String());
const vendor =
  "Posted by the vendor, signed (Twilio: X-Twilio-Signature over CAIRN_PUBLIC_URL and this path with its query, checked with the SDK); 403 PROVIDER_SIGNATURE_INVALID, nothing changed, when the signature is missing or wrong or the instance's voice driver is another.";

/** 002 "Unrecognized calls", and the voice vendors' callbacks. */
const voiceRoutes: AreaPlugin = async (app, { services }) => {
  acceptForms(app);

  app.get(
    base,
    {
      config: needs('VOICE_CALL_READ', { discloses: named('VOICE_CALL') }),
      schema: {
        tags,
        summary: 'Calls from numbers no patient or contact has (page object), newest first',
        description:
          '`unrecognised` (default true): only calls that arrived unrecognized (they stay listed once assigned); false lists every call of the instance. `assigned`: assigned to a patient since, or not. `date`: calls at or after it.',
        params: InstanceParams,
        querystring: UnrecognizedQuery,
        response: { 200: PageObject(VoiceCall), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort: _sort, ...filters } = request.query;
      const { content, total, patients } = await listUnrecognizedCalls(
        contextOf(request),
        filters,
        { page, size },
        requestOrigin(request),
      );
      disclose(request, patients);
      return pageObject(content, total, { page, size }, false);
    },
  );

  app.get(
    `${base}/:voiceCallId`,
    {
      config: needs('VOICE_CALL_READ', { discloses: named('VOICE_CALL') }),
      schema: {
        tags,
        summary: 'A voice call (404 VOICE_CALL_NOT_FOUND)',
        params: CallParams,
        response: { 200: VoiceCall, ...errors },
      },
    },
    async (request) => {
      const { call, patientId } = await getCall(contextOf(request), request.params.voiceCallId, requestOrigin(request));
      disclose(request, [patientId], [call.id]);
      return call;
    },
  );

  app.patch(
    `${base}/:voiceCallId`,
    {
      config: needs('VOICE_CALL_UPDATE', { discloses: named('VOICE_CALL') }),
      schema: {
        tags,
        summary: 'Assign a call to a patient: `{patientId}`',
        description: "The call and its recording become the patient's; `unrecognized` stays true, `assignedBy` names who did it.",
        params: CallParams,
        body: AssignInput,
        response: { 200: VoiceCall, ...errors },
      },
    },
    async (request) => {
      const call = await assignCall(
        contextOf(request),
        request.params.voiceCallId,
        request.body.patientId,
        requestOrigin(request),
      );
      // The call is the patient's now: its answer shows it.
      disclose(request, [request.body.patientId], [request.params.voiceCallId]);
      return call;
    },
  );

  app.get(
    `${base}/:voiceCallId/recordings/:fileId`,
    {
      config: needs('VOICE_CALL_READ', { discloses: named('VOICE_CALL') }),
      schema: {
        tags,
        summary: "A call's recording, as audio (Range honoured)",
        description: "`fileId` is the call's `recordingFile.id`.",
        params: RecordingParams,
        response: {
          200: fileBytes(['audio/mpeg', 'audio/wav']),
          206: fileBytes(['audio/mpeg', 'audio/wav']),
          ...errors,
          416: ErrorBody,
        },
      },
    },
    async (request, reply) =>
      downloadRecording(contextOf(request), request, reply, request.params.voiceCallId, request.params.fileId),
  );

  const callbackSchema = (summary: string, description: string) => ({
    tags,
    summary,
    description: `${description} ${vendor}`,
    consumes: ['application/x-www-form-urlencoded'],
    params: VendorParams,
    body: Form,
    response: { 200: Type.String(), ...errors },
  });

  app.post(
    `${vendorBase}/inbound`,
    {
      config: { access: { public: true } },
      schema: callbackSchema(
        "The voice vendor's webhook for a call to an instance phone",
        "Give the vendor `<CAIRN_PUBLIC_URL>/{tenantName}/{instanceName}/providers/voice/twilio/inbound` as the number's voice webhook. The call is stored (on its patient, or unrecognized) and answered with a voicemail, whose recording is fetched and kept.",
      ),
    },
    async (request, reply) => {
      const { scope, driver, params } = await checkedCallback(services, voiceSlot, request, request.params);
      const callbacks = driver.callbacks!;
      await receiveCall(services, scope, callbacks.inbound(params));
      const answer = callbacks.answerInbound(
        callbackBase(services, request.params.tenantName, request.params.instanceName, 'voice') ?? '',
      );
      return reply.type(answer.contentType).send(answer.body);
    },
  );

  app.post(
    `${vendorBase}/status`,
    {
      config: { access: { public: true } },
      schema: callbackSchema(
        "The voice vendor's progress reports of a call's legs",
        "Cairn gives the vendor this URL (with `?leg=parent` or `?leg=child`) for each call it places. The parent leg (the member's phone) is the call's status; the child's (the patient's) is kept beside it. A call that ended does not start again.",
      ),
    },
    async (request, reply) => {
      const { scope, driver, params } = await checkedCallback(services, voiceSlot, request, request.params);
      const callbacks = driver.callbacks!;
      await reportCallStatus(services, scope, callbacks.status(params));
      return reply.type(callbacks.answer.contentType).send(callbacks.answer.body);
    },
  );

  app.post(
    `${vendorBase}/recording`,
    {
      config: { access: { public: true } },
      schema: callbackSchema(
        "The voice vendor's word that a recording is ready",
        "The recording is fetched from the vendor by a background job and kept as the call's `recordingFile`.",
      ),
    },
    async (request, reply) => {
      const { scope, driver, params } = await checkedCallback(services, voiceSlot, request, request.params);
      const callbacks = driver.callbacks!;
      await reportRecording(services, scope, callbacks.recording(params));
      return reply.type(callbacks.answer.contentType).send(callbacks.answer.body);
    },
  );
};

export default voiceRoutes;
