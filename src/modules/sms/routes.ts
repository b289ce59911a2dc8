import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { acceptForms, checkedCallback } from '../../http/provider-callbacks.ts';
import { needs } from '../../http/route-access.ts';
import { smsSlot } from '../../providers/sms/sms.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { receiveSms } from './inbound.ts';
import { getSms, listPatientSms } from './messages.ts';
import { SmsListParams, SmsListQuery, SmsParams, SmsRecord } from './schemas.ts';
import { reportSmsStatus } from './send.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['SMS'];
const base = '/:tenantName/:instanceName/patients/:patientId/sms';
const VendorParams = Type.Object({ ...InstanceParams.properties, driver: Type.String({ maxLength: 40 }) });
const Form = Type.Record(Type.String(), Type.String());
const vendor =
  "Posted by the vendor, signed (Twilio: X-Twilio-Signature over CAIRN_PUBLIC_URL and this path, checked with the SDK); 403 PROVIDER_SIGNATURE_INVALID, nothing changed, when the signature is missing or wrong or the instance's SMS driver is another.";

/** SMS (DECISIONS §7): a patient's messages, and the SMS vendors' callbacks. */
const smsRoutes: AreaPlugin = async (app, { services }) => {
  acceptForms(app);

  app.get(
    base,
    {
      config: needs('SMS_READ', { discloses: thePatient('SMS') }),
      schema: {
        tags,
        summary: "A patient's (or contact's) SMS, sent and received (page object)",
        description:
          "Filters: `status` (any of), `direction` (IN or OUT), `dateAfter` (inclusive) and `dateBefore` (exclusive) on `date`. Sort: date (default, newest first) or createdAt. `{patientId}` may be a contact's id: that contact's messages.",
        params: SmsListParams,
        querystring: SmsListQuery,
        response: { 200: PageObject(SmsRecord), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filters } = request.query;
      const { content, total, sorted } = await listPatientSms(
        contextOf(request),
        request.params.patientId,
        filters,
        { page, size },
        sort,
        requestOrigin(request),
      );
      return pageObject(content, total, { page, size }, sorted);
    },
  );

  app.get(
    `${base}/:smsId`,
    {
      config: needs('SMS_READ', { discloses: thePatient('SMS') }),
      schema: { tags, summary: 'Read an SMS (404 SMS_NOT_FOUND)', params: SmsParams, response: { 200: SmsRecord, ...errors } },
    },
    async (request) => {
      const { patientId, smsId } = request.params;
      return getSms(contextOf(request), patientId, smsId, requestOrigin(request));
    },
  );

  app.post(
    '/:tenantName/:instanceName/providers/sms/:driver/inbound',
    {
      config: { access: { public: true } },
      schema: {
        tags,
        summary: "The SMS vendor's webhook for a message to an instance phone",
        description: `Give the vendor \`<CAIRN_PUBLIC_URL>/{tenantName}/{instanceName}/providers/sms/twilio/inbound\` as the number's messaging webhook. The message lands on the patient (or contact) with that number, RECEIVED, else UNRECOGNISED. ${vendor}`,
        consumes: ['application/x-www-form-urlencoded'],
        params: VendorParams,
        body: Form,
        response: { 200: Type.String(), ...errors },
      },
    },
    async (request, reply) => {
      const { scope, driver, params } = await checkedCallback(services, smsSlot, request, request.params);
      const callbacks = driver.callbacks!;
      await receiveSms(services, scope, callbacks.inbound(params));
      return reply.type(callbacks.answer.contentType).send(callbacks.answer.body);
    },
  );

  app.post(
    '/:tenantName/:instanceName/providers/sms/:driver/status',
    {
      config: { access: { public: true } },
      schema: {
        tags,
        summary: "The SMS vendor's delivery reports",
        description: `Cairn gives the vendor this URL with each message it sends, when CAIRN_PUBLIC_URL is set. A report moves the message on (SENT, DELIVERED, UNDELIVERED, FAILED with the vendor's error), never back. ${vendor}`,
        consumes: ['application/x-www-form-urlencoded'],
        params: VendorParams,
        body: Form,
        response: { 200: Type.String(), ...errors },
      },
    },
    async (request, reply) => {
      const { scope, driver, params } = await checkedCallback(services, smsSlot, request, request.params);
      const callbacks = driver.callbacks!;
      await reportSmsStatus(services, scope, callbacks.status(params));
      return reply.type(callbacks.answer.contentType).send(callbacks.answer.body);
    },
  );
};

export default smsRoutes;
