import { requestOrigin } from '../../files/links.ts';
import { contentTypes } from '../../files/rules.ts';
import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { uploadForm } from '../../http/request-bodies.ts';
import { needs } from '../../http/route-access.ts';
import { CdtRecord } from '../../records/cdt-view.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody } from '../../wire/schemas.ts';
import { fileBytes } from '../files/index.ts';
import binaryRoutes from './binary-fhir.ts';
import { documentFiles } from './catalog.ts';
import { addFiles, createSummary, deleteSummary, downloadFile, getSummary, listSummaries, updateSummary } from './operations.ts';
import {
  DocumentSummary,
  FileEntries,
  SignedUrlsQuery,
  SummaryCreateBody,
  SummaryFileParams,
  SummaryIdParams,
  SummaryList,
  SummaryListQuery,
  SummaryParams,
  SummaryUpdateBody,
  TypeRecordBody,
  TypeRecordParams,
} from './schemas.ts';
import { createTypeRecord, deleteTypeRecord, getTypeRecord, replaceTypeRecord } from './type-records.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Documents'];
const DocumentBytes = fileBytes(documentFiles.DOCUMENT_SUMMARY.rules.extensions.map((extension) => contentTypes[extension]!));
const path = '/:tenantName/:instanceName/patients/:patientId/document-summary';

/** 001 "Documents" and DECISIONS §7: a patient's document summaries, their files and type records. */
const documentRoutes: AreaPlugin = async (app, options) => {
  // Their files as FHIR's Binary: a plugin of its own, under the FHIR API's error handler.
  await app.register(binaryRoutes, options);
  app.get(
    path,
    {
      config: needs('DOCUMENT_READ', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: "A patient's document summaries: {name, data: page object}",
        description:
          'sourceId (DECISIONS §8) keeps the summaries of one source. sort: createdAt or updatedAt; default createdAt,desc. signedUrls=true links each file for 5 minutes, as on one summary.',
        params: SummaryParams,
        querystring: SummaryListQuery,
        response: { 200: SummaryList, ...errors },
      },
    },
    async (request) => {
      const links = request.query.signedUrls ? { origin: requestOrigin(request) } : undefined;
      return listSummaries(contextOf(request), request.params.patientId, request.query, links);
    },
  );

  app.post(
    path,
    {
      config: needs('DOCUMENT_UPDATE', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: 'Create a document summary (201; files: null until files are added)',
        description:
          '`type` names a document type of the formation (doc-type-assessment, doc-type-esign and doc-type-others always exist). sourceId, sourceType and sourceName record what the document came from. Files are added with POST /{id}/files.',
        params: SummaryParams,
        body: SummaryCreateBody,
        response: { 201: DocumentSummary, ...errors },
      },
    },
    async (request, reply) => {
      const summary = await createSummary(contextOf(request), request.params.patientId, request.body);
      return reply.code(201).send(summary);
    },
  );

  app.get(
    `${path}/:summaryId`,
    {
      config: needs('DOCUMENT_READ', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: 'Read a document summary',
        description: 'signedUrls=true adds to each file a `url` that works without a token for 5 minutes (000).',
        params: SummaryIdParams,
        querystring: SignedUrlsQuery,
        response: { 200: DocumentSummary, ...errors },
      },
    },
    async (request) => {
      const { patientId, summaryId } = request.params;
      const links = request.query.signedUrls ? { origin: requestOrigin(request) } : undefined;
      return getSummary(contextOf(request), patientId, summaryId, links);
    },
  );

  app.put(
    `${path}/:summaryId`,
    {
      config: needs('DOCUMENT_UPDATE', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: 'Replace a summary: its type and the files to keep',
        description:
          "Files of the summary left out of `files` are deleted with their bytes; null or [] deletes them all; leaving `files` out keeps them all. An id that is not one of this summary's files is 400. Changing the type while a document type record exists is 400.",
        params: SummaryIdParams,
        body: SummaryUpdateBody,
        response: { 200: DocumentSummary, ...errors },
      },
    },
    async (request) => {
      const { patientId, summaryId } = request.params;
      return updateSummary(contextOf(request), patientId, summaryId, request.body);
    },
  );

  app.delete(
    `${path}/:summaryId`,
    {
      config: needs('DOCUMENT_UPDATE', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: 'Delete a summary, its document type record and its files (200, empty body)',
        params: SummaryIdParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, summaryId } = request.params;
      await deleteSummary(contextOf(request), patientId, summaryId);
      return reply.send();
    },
  );

  app.post(
    `${path}/:summaryId/files`,
    {
      config: {
        ...needs('DOCUMENT_UPDATE', { discloses: thePatient('FILE') }),
        requestBodies: { 'multipart/form-data': uploadForm('files', 'The files, one part each') },
      },
      schema: {
        tags,
        summary: 'Add files (multipart/form-data, part `files`, repeatable): 201 with their entries',
        description:
          'jpg, jpeg, png or pdf (000), judged by content as well as name: a file whose bytes are not of its extension is 400 FILE_CONTENT_MISMATCH. At most 25 MB a file, 10 files and 100 MB a request (400 FILE_TOO_LARGE / TOO_MANY_FILES). The bytes are streamed to storage, never held whole; if the request fails, nothing stays stored.',
        params: SummaryIdParams,
        response: { 201: FileEntries, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, summaryId } = request.params;
      const entries = await addFiles(contextOf(request), request, patientId, summaryId);
      return reply.code(201).send(entries);
    },
  );

  app.get(
    `${path}/:summaryId/files/:fileId`,
    {
      config: needs('DOCUMENT_READ', { discloses: thePatient('FILE') }),
      schema: {
        tags,
        summary: "A file's bytes, with its content type; HTTP Range supported (206, 416)",
        params: SummaryFileParams,
        response: { 200: DocumentBytes, 206: DocumentBytes, ...errors, 416: ErrorBody },
      },
    },
    async (request, reply) => {
      const { patientId, summaryId, fileId } = request.params;
      return downloadFile(contextOf(request), request, reply, patientId, summaryId, fileId);
    },
  );

  const typePath = `${path}/:summaryId/:docType`;
  app.get(
    typePath,
    {
      config: needs('DOCUMENT_READ', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: "The summary's document type record",
        params: TypeRecordParams,
        response: { 200: CdtRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, summaryId, docType } = request.params;
      return getTypeRecord(contextOf(request), patientId, summaryId, docType);
    },
  );

  app.post(
    typePath,
    {
      config: needs('DOCUMENT_UPDATE', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: "Create the summary's document type record (201)",
        description:
          "docType must be the summary's type; its fields are the type's custom fields in the formation. A second record is 409 DUPLICATE_VALUE (one per summary).",
        params: TypeRecordParams,
        body: TypeRecordBody,
        response: { 201: CdtRecord, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const { patientId, summaryId, docType } = request.params;
      const record = await createTypeRecord(contextOf(request), patientId, summaryId, docType, request.body);
      return reply.code(201).send(record);
    },
  );

  app.put(
    typePath,
    {
      config: needs('DOCUMENT_UPDATE', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: "Replace the document type record's values (it must exist)",
        params: TypeRecordParams,
        body: TypeRecordBody,
        response: { 200: CdtRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, summaryId, docType } = request.params;
      return replaceTypeRecord(contextOf(request), patientId, summaryId, docType, request.body);
    },
  );

  app.delete(
    typePath,
    {
      config: needs('DOCUMENT_UPDATE', { discloses: thePatient('DOCUMENT_SUMMARY') }),
      schema: {
        tags,
        summary: 'Delete the document type record (200, empty body)',
        params: TypeRecordParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, summaryId, docType } = request.params;
      await deleteTypeRecord(contextOf(request), patientId, summaryId, docType);
      return reply.send();
    },
  );
};

export default documentRoutes;
