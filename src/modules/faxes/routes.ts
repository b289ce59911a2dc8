import { requestOrigin } from '../../files/links.ts';
import { eachPatient, itsPatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { uploadForm } from '../../http/request-bodies.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams } from '../../wire/schemas.ts';
import { faxCallbackRoutes } from './callbacks.ts';
import { addFaxFiles, createFax, deleteFax, deleteFaxFile, getFax, listFaxViews, updateFax } from './faxes.ts';
import { Fax, FaxFileParams, FaxInput, FaxListQuery, FaxParams, FaxPatch } from './schemas.ts';
import { sendFax } from './send.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Fax'];
const base = '/:tenantName/:instanceName/faxes';

/** 002 "Fax" endpoints and DECISIONS §8 (send, file delete). */
const faxRoutes: AreaPlugin = async (app, options) => {
  await app.register(faxCallbackRoutes, options);

  app.get(
    base,
    {
      config: needs('FAX_READ', { discloses: eachPatient('FAX', 'content', 'patient.id') }),
      schema: {
        tags,
        summary: 'Faxes, sent and received (page object), newest first',
        description:
          'Filters combine: `statuses` (any of), `direction` (IN or OUT), `subject` and `sentByName` (part of, any case), `fromNumber` and `toNumber` (digits, the plus optional), `patientId`, `reviewed`, `sentBy`, `createdAtAfter`/`createdAtBefore` and `receivedAtAfter`/`receivedAtBefore` (after inclusive, before exclusive). Sort: createdAt.',
        params: InstanceParams,
        querystring: FaxListQuery,
        response: { 200: PageObject(Fax), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filters } = request.query;
      const { content, total, sorted } = await listFaxViews(
        contextOf(request),
        filters,
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
      config: needs('FAX_UPDATE', { discloses: itsPatient('FAX', 'patient.id') }),
      schema: {
        tags,
        summary: 'Write a fax draft (201, DRAFT)',
        description:
          "`sender.faxNumber` must be the number of one of the instance's fax phones (formation instancePhones whose capabilities include FAX; 400 VALIDATION_ERROR naming body.sender.faxNumber otherwise); it defaults to the default one among them, else the first. `receiver` is the outside party's number, any E.164 number. Then add files, and send.",
        params: InstanceParams,
        body: FaxInput,
        response: { 201: Fax, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await createFax(contextOf(request), request.body, requestOrigin(request))),
  );

  app.get(
    `${base}/:faxId`,
    {
      config: needs('FAX_READ', { discloses: itsPatient('FAX', 'patient.id') }),
      schema: { tags, summary: 'A fax (404 FAX_NOT_FOUND)', params: FaxParams, response: { 200: Fax, ...errors } },
    },
    async (request) => getFax(contextOf(request), request.params.faxId, requestOrigin(request)),
  );

  app.patch(
    `${base}/:faxId`,
    {
      config: needs('FAX_UPDATE', { discloses: itsPatient('FAX', 'patient.id') }),
      schema: {
        tags,
        summary: 'Change the fields given of a fax',
        description:
          "`patientId` only for an outgoing fax, `reviewed` only for an incoming one (400 otherwise); `sender`, `receiver` and `highQuality` only while a draft (409 FAX_NOT_DRAFT). A new `sender.faxNumber` must be one of the instance's fax phones (400 VALIDATION_ERROR naming body.sender.faxNumber); the draft's own, sent back as read, is taken as it is, and `sender: null` leaves the choice to the send (the default fax phone), which checks the sender again.",
        params: FaxParams,
        body: FaxPatch,
        response: { 200: Fax, ...errors, 409: ErrorBody },
      },
    },
    async (request) => updateFax(contextOf(request), request.params.faxId, request.body, requestOrigin(request)),
  );

  app.delete(
    `${base}/:faxId`,
    {
      config: needs('FAX_UPDATE'),
      schema: {
        tags,
        summary: 'Delete a fax and its files (200, empty)',
        description: '409 FAX_IN_FLIGHT while it is QUEUED or SENDING.',
        params: FaxParams,
        response: { 200: EmptyBody, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await deleteFax(contextOf(request), request.params.faxId);
      return reply.send();
    },
  );

  app.post(
    `${base}/:faxId/files`,
    {
      config: {
        ...needs('FAX_UPDATE', { discloses: itsPatient('FAX', 'patient.id') }),
        requestBodies: { 'multipart/form-data': uploadForm('files', 'The files, one part each') },
      },
      schema: {
        tags,
        summary: 'Add files to a fax draft (multipart, parts `files`): the fax with its files',
        description:
          'jpg, jpeg, png, pdf or docx, judged by content; at most 10 files and 100 MB a fax (000), 400 beyond. Streamed: a large file never sits whole in memory. Nothing stays stored when the request fails.',
        params: FaxParams,
        response: { 200: Fax, ...errors, 409: ErrorBody },
      },
    },
    async (request) => addFaxFiles(contextOf(request), request, request.params.faxId, requestOrigin(request)),
  );

  app.delete(
    `${base}/:faxId/files/:fileId`,
    {
      config: needs('FAX_UPDATE'),
      schema: {
        tags,
        summary: 'Remove a file from a fax draft (200, empty)',
        params: FaxFileParams,
        response: { 200: EmptyBody, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await deleteFaxFile(contextOf(request), request.params.faxId, request.params.fileId);
      return reply.send();
    },
  );

  app.post(
    `${base}/:faxId/send`,
    {
      config: needs('FAX_UPDATE', { discloses: itsPatient('FAX', 'patient.id') }),
      schema: {
        tags,
        summary: 'Send a fax draft: QUEUED, then SENDING, SENT, DELIVERED or FAILED',
        description:
          "Answers once it is queued. A background job hands it to the instance's fax provider (SENDING); the provider's reports move it to SENT and DELIVERED, or FAILED with `statusMessage`. The sender is checked again against the current formation: it must still be one of the instance's fax phones (a draft without one takes the default fax phone), else 400 VALIDATION_ERROR naming sender.faxNumber and nothing is sent. 400 FAX_RECEIVER_MISSING or FAX_FILES_MISSING; 409 FAX_NOT_DRAFT.",
        params: FaxParams,
        response: { 200: Fax, ...errors, 409: ErrorBody },
      },
    },
    async (request) => sendFax(contextOf(request), request.params.faxId, requestOrigin(request)),
  );
};

export default faxRoutes;
