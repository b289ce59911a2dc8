import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { requestOrigin } from '../../files/links.ts';
import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { uploadForm } from '../../http/request-bodies.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody, validationError } from '../../wire/errors.ts';
import { EmptyBody, readInstant } from '../../wire/schemas.ts';
import { addInbound, archiveChat, listChat, restoreChat, searchChat } from './operations.ts';
import {
  ArchiveInput,
  ChatListQuery,
  ChatMessage,
  ChatPage,
  ChatParams,
  ChatSearchQuery,
  InboundJson,
  SearchPage,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Chat'];
const base = '/:tenantName/:instanceName/patients/:patientId/chat';
const tokenNote =
  'Token pages, newest first: `meta.nextPageToken` reads on to older messages, `prevPageToken` back to newer ones; a token carries the size, the flags and the query, so it may be sent alone (sizes sent beside it are ignored). A tampered token is 400 INVALID_PAGE_TOKEN.';

const chatRoutes: AreaPlugin = async (app) => {
  app.get(
    base,
    {
      config: needs('CHAT_READ', { discloses: thePatient('CHAT_MESSAGE') }),
      schema: {
        tags,
        summary: "A patient's chat messages (token pages)",
        description: `\`size\` (or \`pageSize\`, 1–100, default 20). Messages archived are left out unless \`includeArchived\`. \`createdAt\` is written to the second, as production does. ${tokenNote} Attachment links expire after 5 minutes (\`GET /files/{fileId}\` renews one).`,
        params: ChatParams,
        querystring: ChatListQuery,
        response: { 200: ChatPage, ...errors },
      },
    },
    async (request) => {
      const { size, pageSize, pageToken, includeArchived } = request.query;
      return listChat(
        contextOf(request),
        request.params.patientId,
        { size: size ?? pageSize, pageToken, includeArchived },
        requestOrigin(request),
      );
    },
  );

  app.get(
    `${base}/search`,
    {
      config: needs('CHAT_READ', { discloses: thePatient('CHAT_MESSAGE') }),
      schema: {
        tags,
        summary: 'Search a patient’s chat messages',
        description: `\`query\` is matched in the text, any case, through an index. \`pageSize\` hits a page (default 20); each hit's \`meta\` holds the tokens of the chat list around it, \`contentPageSize\` messages a page. ${tokenNote}`,
        params: ChatParams,
        querystring: ChatSearchQuery,
        response: { 200: SearchPage, ...errors },
      },
    },
    async (request) => searchChat(contextOf(request), request.params.patientId, request.query, requestOrigin(request)),
  );

  app.post(
    `${base}/inbound`,
    {
      config: {
        ...needs('CHAT_UPDATE', { discloses: thePatient('CHAT_MESSAGE') }),
        requestBodies: {
          'application/json': InboundJson,
          'multipart/form-data': uploadForm('attachmentAsFiles', 'The files, one part each', {
            message: Type.Optional(Type.String({ maxLength: 10_000 })),
          }),
        },
      },
      schema: {
        tags,
        summary: 'A message from the patient to the care team (200)',
        description:
          'JSON `{message, skipEvent}`, or multipart/form-data with a `message` field and files in `attachmentAsFiles` parts (jpg, jpeg, png, pdf, mp3, wav, ogg, checked by content; at most 25 MB a file, 10 files, 50 MB in all). Text or a file is needed (400 EMPTY_MESSAGE otherwise). `skipEvent: true` writes no event.',
        params: ChatParams,
        response: { 200: ChatMessage, ...errors },
      },
    },
    async (request) => {
      if (!request.isMultipart() && !Value.Check(InboundJson, request.body)) {
        const problems = [...Value.Errors(InboundJson, request.body)].map((error) => ({
          path: `body${error.instancePath.replaceAll('/', '.')}`,
          message: error.message,
        }));
        throw validationError(problems.length > 0 ? problems : [{ path: 'body', message: 'must be {message}' }]);
      }
      return addInbound(contextOf(request), request, request.params.patientId, requestOrigin(request));
    },
  );

  app.post(
    `${base}/archive`,
    {
      config: needs('CHAT_UPDATE', { callers: 'USER' }),
      schema: {
        tags,
        summary: "Archive a patient's chat up to a date (users only)",
        description:
          'Messages until `archiveDate` are left out of the list and search unless `includeArchived`. Closed to API clients (403 ACCESS_FOR_API_CLIENT_RESTRICTED), as in production.',
        params: ChatParams,
        body: ArchiveInput,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      await archiveChat(contextOf(request), request.params.patientId, readInstant(request.body.archiveDate));
      return reply.send();
    },
  );

  app.post(
    `${base}/restore`,
    {
      config: needs('CHAT_UPDATE', { callers: 'USER' }),
      schema: {
        tags,
        summary: "Restore a patient's archived chat (users only)",
        params: ChatParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      await restoreChat(contextOf(request), request.params.patientId);
      return reply.send();
    },
  );
};

export default chatRoutes;
