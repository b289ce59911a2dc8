import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { uploadForm } from '../../http/request-bodies.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';
import { addDraftFiles, createEmailDraft, deleteEmailDraft, getEmailDraft, listEmailDrafts, updateEmailDraft } from './drafts.ts';
import { getEmail, listPatientEmails } from './emails.ts';
import { receiveRawEmail } from './mime.ts';
import {
  DraftInput,
  DraftListQuery,
  DraftParams,
  EmailDraft,
  EmailListQuery,
  EmailParams,
  EmailRecord,
  RecipientParams,
} from './schemas.ts';
import { sendEmailDraft } from './send.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Email'];
const base = '/:tenantName/:instanceName/patients/:patientId/email-drafts';
const emails = '/:tenantName/:instanceName/patients/:patientId/emails';
const recipientNote =
  "`{patientId}` may be a contact's id: the draft is then about that contact of its patient, who is the receiver (002).";

const emailRoutes: AreaPlugin = async (app, { services }) => {
  // A raw inbound email streams on to its parser (mime.ts); nothing holds it whole.
  app.addContentTypeParser('message/rfc822', (_request, payload, done) => done(null, payload));

  app.get(
    base,
    {
      config: needs('EMAIL_READ', { discloses: thePatient('EMAIL_DRAFT') }),
      schema: {
        tags,
        summary: "A patient's (or contact's) email drafts (page object)",
        description: `Sort: createdAt (default, newest first) or updatedAt. ${recipientNote}`,
        params: RecipientParams,
        querystring: DraftListQuery,
        response: { 200: PageObject(EmailDraft), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort } = request.query;
      const { content, total, sorted } = await listEmailDrafts(
        contextOf(request),
        request.params.patientId,
        { page, size },
        sort,
        requestOrigin(request),
      );
      return pageObject(content, total, { page, size }, sorted);
    },
  );

  app.post(
    base,
    {
      config: needs('EMAIL_UPDATE', { discloses: thePatient('EMAIL_DRAFT') }),
      schema: {
        tags,
        summary: 'Write an email draft (201, status WAITING)',
        description: `The caller is the sender; \`patientEmail\` defaults to the patient's (or contact's) address. An HTML body is sanitized (no scripts, event handlers or javascript: links). ${recipientNote}`,
        params: RecipientParams,
        body: DraftInput,
        response: { 201: EmailDraft, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await createEmailDraft(contextOf(request), request.params.patientId, request.body, requestOrigin(request))),
  );

  app.get(
    `${base}/:draftId`,
    {
      config: needs('EMAIL_READ', { discloses: thePatient('EMAIL_DRAFT') }),
      schema: { tags, summary: 'Read an email draft', params: DraftParams, response: { 200: EmailDraft, ...errors } },
    },
    async (request) => {
      const { patientId, draftId } = request.params;
      return getEmailDraft(contextOf(request), patientId, draftId, requestOrigin(request));
    },
  );

  app.patch(
    `${base}/:draftId`,
    {
      config: needs('EMAIL_UPDATE', { discloses: thePatient('EMAIL_DRAFT') }),
      schema: {
        tags,
        summary: 'Change the fields given of an email draft',
        params: DraftParams,
        body: DraftInput,
        response: { 200: EmailDraft, ...errors },
      },
    },
    async (request) => {
      const { patientId, draftId } = request.params;
      return updateEmailDraft(contextOf(request), patientId, draftId, request.body, requestOrigin(request));
    },
  );

  app.delete(
    `${base}/:draftId`,
    {
      config: needs('EMAIL_UPDATE', { discloses: thePatient('EMAIL_DRAFT') }),
      schema: {
        tags,
        summary: 'Delete an email draft and its files (200, empty)',
        params: DraftParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, draftId } = request.params;
      await deleteEmailDraft(contextOf(request), patientId, draftId);
      return reply.send();
    },
  );

  app.post(
    `${base}/:draftId`,
    {
      config: {
        ...needs('EMAIL_UPDATE', { discloses: thePatient('EMAIL_DRAFT') }),
        requestBodies: { 'multipart/form-data': uploadForm('attachmentsAsFiles', 'The files, one part each') },
      },
      schema: {
        tags,
        summary: 'Attach files to an email draft (multipart, parts `attachmentsAsFiles`): the draft',
        description:
          'jpg, jpeg, png or pdf, judged by content; at most 10 MB a file, 10 files and 25 MB a request. Nothing stays stored when the request fails.',
        params: DraftParams,
        response: { 200: EmailDraft, ...errors },
      },
    },
    async (request) => {
      const { patientId, draftId } = request.params;
      return addDraftFiles(contextOf(request), request, patientId, draftId, requestOrigin(request));
    },
  );

  app.post(
    `${base}/:draftId/send`,
    {
      config: needs('EMAIL_UPDATE', { discloses: thePatient('EMAIL_DRAFT') }),
      schema: {
        tags,
        summary: 'Send an email draft: the email (200), stored and queued; the draft is gone',
        description:
          "The draft becomes an email with its attachments, in one transaction, and the answer comes once it is stored and queued: ACCEPTED, or SCHEDULED when `scheduledAt` is ahead (a time already past sends at once). A background job hands it to the instance's email provider and moves its status: DELIVERED once an SMTP relay takes it; with the sandbox, ACCEPTED until the sandbox is told what became of it; REJECTED with `errorMessage` when the provider refuses it for good; FAILED when every attempt (14, over about 9 to 18 hours) failed. 400 EMAIL_ADDRESS_MISSING when the draft has no address.",
        params: DraftParams,
        response: { 200: EmailRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, draftId } = request.params;
      return sendEmailDraft(contextOf(request), patientId, draftId, requestOrigin(request));
    },
  );

  app.get(
    emails,
    {
      config: needs('EMAIL_READ', { discloses: thePatient('EMAIL') }),
      schema: {
        tags,
        summary: "A patient's (or contact's) emails, sent and received (page object)",
        description: `Filters combine: \`status\` (any of, comma-separated or repeated), \`email\` (the from or to address), \`from\`, \`to\`, \`starred\`, \`direction\` (IN or OUT), \`senderId\`, \`receiverId\`, \`senderName\` and \`receiverName\` (part of the name), \`dateAfter\` (inclusive) and \`dateBefore\` (exclusive) on \`date\`, and \`search\` (or \`query\`: part of the subject or body, through a trigram index). Addresses match in any case. Sort: date (default, newest first), createdAt or updatedAt. \`date\` is when an email goes (its scheduledAt, or when it was sent) or came in. ${recipientNote}`,
        params: RecipientParams,
        querystring: EmailListQuery,
        response: { 200: PageObject(EmailRecord), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filters } = request.query;
      const { content, total, sorted } = await listPatientEmails(
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
    `${emails}/:emailId`,
    {
      config: needs('EMAIL_READ', { discloses: thePatient('EMAIL') }),
      schema: {
        tags,
        summary: 'Read an email (404 EMAIL_NOT_FOUND)',
        params: EmailParams,
        response: { 200: EmailRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, emailId } = request.params;
      return getEmail(contextOf(request), patientId, emailId, requestOrigin(request));
    },
  );

  app.post(
    '/:tenantName/:instanceName/providers/email/inbound',
    {
      config: {
        access: {
          public: true,
          discloses: {
            none: "the operator's mail system, signed, hears where the email it delivered landed; it has no caller to record, and the email's arrival is in the audit log",
          },
        },
        requestBodies: { 'message/rfc822': Type.String({ format: 'binary' }) },
      },
      schema: {
        tags,
        summary: 'An inbound email from your mail system: the raw message, signed (Standard Webhooks)',
        description:
          "For the smtp driver: the operator's mail system (a pipe from Postfix, a cloud inbound-parse hook) POSTs each message received for the instance as `message/rfc822`, signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp` within 5 minutes, `webhook-signature`) with the instance's email `inboundSecret` (`/{tenantName}/admin/providers`, or CAIRN_EMAIL_INBOUND_SECRET). The email lands on the patient (or contact) whose address it is from, DELIVERED, else UNRECOGNISED; attachments the email rules take (jpg, jpeg, png, pdf; 10 MB each, 10 and 25 MB in all) are kept, others left out. The same Message-ID twice is stored once. At most 40 MB. 403 PROVIDER_SIGNATURE_INVALID, nothing kept, when the signature is missing, old or wrong.",
        params: InstanceParams,
        response: {
          200: Type.Object({ id: Uuid, patientId: Nullable(Uuid), status: Type.String() }),
          ...errors,
          413: ErrorBody,
          415: ErrorBody,
        },
      },
    },
    async (request) => receiveRawEmail(services, request.params.tenantName, request.params.instanceName, request),
  );
};

export default emailRoutes;
