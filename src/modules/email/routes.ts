import { requestOrigin } from '../../files/links.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody } from '../../wire/schemas.ts';
import {
  addDraftFiles,
  createEmailDraft,
  deleteEmailDraft,
  getEmailDraft,
  listEmailDrafts,
  updateEmailDraft,
} from './operations.ts';
import { DraftInput, DraftListQuery, DraftParams, EmailDraft, RecipientParams } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Email'];
const base = '/:tenantName/:instanceName/patients/:patientId/email-drafts';
const recipientNote =
  "`{patientId}` may be a contact's id: the draft is then about that contact of its patient, who is the receiver (002).";

const emailRoutes: AreaPlugin = async (app) => {
  app.get(
    base,
    {
      config: needs('EMAIL_READ'),
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
      config: needs('EMAIL_UPDATE'),
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
      config: needs('EMAIL_READ'),
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
      config: needs('EMAIL_UPDATE'),
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
      config: needs('EMAIL_UPDATE'),
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
      config: needs('EMAIL_UPDATE'),
      schema: {
        tags,
        summary: 'Attach files to an email draft (multipart, parts `attachmentsAsFiles`): the draft',
        description:
          'jpg, jpeg, png or pdf, judged by content; at most 10 MB a file, 10 files and 25 MB a request. Nothing stays stored when the request fails.',
        consumes: ['multipart/form-data'],
        params: DraftParams,
        response: { 200: EmailDraft, ...errors },
      },
    },
    async (request) => {
      const { patientId, draftId } = request.params;
      return addDraftFiles(contextOf(request), request, patientId, draftId, requestOrigin(request));
    },
  );
};

export default emailRoutes;
