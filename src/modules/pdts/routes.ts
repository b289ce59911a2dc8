import { eachPatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { Patient } from '../patients/index.ts';
import { createPdtRecord, deletePdtRecord, getPdtRecord, listPdt, patientsOfRecord, updatePdtRecord } from './operations.ts';
import { PdtList, PdtListQuery, PdtParams, PdtPatientsQuery, PdtRecord, PdtRecordParams, PdtValuesBody } from './schemas.ts';
import { sortablePdtFields } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['PDT records'];
const typeNote = 'The type must exist in the current formation (404 PDT_NOT_FOUND otherwise).';

const pdtRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/:instanceName/pdts/:pdtName',
    {
      config: needs('PDT_READ'),
      schema: {
        tags,
        summary: "List a type's records: {pdtName, lastUpdatedAt, records (data and meta)}",
        description: `${typeNote} \`search\` matches a substring of fullValue in any case; deleted records are listed only with \`showDeleted=true\`. \`lastUpdatedAt\` is the latest change to any record of the type, deletions included. Sort: createdAt, updatedAt.`,
        params: PdtParams,
        querystring: PdtListQuery,
        response: { 200: PdtList, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { page, size, sort, search, showDeleted } = request.query;
      const sortKeys = parseSort(sort, sortablePdtFields);
      return listPdt(ctx, request.params.pdtName, { search, showDeleted }, { page, size }, sortKeys);
    },
  );

  app.post(
    '/:tenantName/:instanceName/pdts/:pdtName',
    {
      config: needs('PDT_UPDATE'),
      schema: {
        tags,
        summary: 'Create a record from a flat map of field values',
        description: `${typeNote} Values may also come under \`jsonBody\` or \`values\`; keys that are not fields of the type are ignored. Required fields and value types are checked.`,
        params: PdtParams,
        body: PdtValuesBody,
        response: { 201: PdtRecord, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      reply.code(201);
      return createPdtRecord(ctx, request.params.pdtName, request.body);
    },
  );

  app.get(
    '/:tenantName/:instanceName/pdts/:pdtName/:pdtId',
    {
      config: needs('PDT_READ'),
      schema: {
        tags,
        summary: 'Read a record (deleted records stay readable, with deleted: true)',
        params: PdtRecordParams,
        response: { 200: PdtRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return getPdtRecord(ctx, request.params.pdtName, request.params.pdtId);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/pdts/:pdtName/:pdtId',
    {
      config: needs('PDT_UPDATE'),
      schema: {
        tags,
        summary: 'Change the field values given; null clears a field',
        description: 'A deleted record can no longer change (400 BAD_REQUEST).',
        params: PdtRecordParams,
        body: PdtValuesBody,
        response: { 200: PdtRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { pdtName, pdtId } = request.params;
      return updatePdtRecord(ctx, pdtName, pdtId, request.body);
    },
  );

  app.delete(
    '/:tenantName/:instanceName/pdts/:pdtName/:pdtId',
    {
      config: needs('PDT_UPDATE'),
      schema: {
        tags,
        summary: 'Soft-delete a record; answers 200 with the record (deleted: true)',
        description: 'Deleting a deleted record answers it again and changes nothing.',
        params: PdtRecordParams,
        response: { 200: PdtRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return deletePdtRecord(ctx, request.params.pdtName, request.params.pdtId);
    },
  );

  app.get(
    '/:tenantName/:instanceName/pdts/:pdtName/:pdtId/patients',
    {
      config: needs('PDT_READ', { discloses: eachPatient('PATIENT', 'content', 'id') }),
      schema: {
        tags,
        summary: 'The patients with a contact backed by this record (page object)',
        description: 'Contacts count whether active or not; patients come in creation order.',
        params: PdtRecordParams,
        querystring: PdtPatientsQuery,
        response: { 200: PageObject(Patient), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { page, size } = request.query;
      const { content, total } = await patientsOfRecord(ctx, request.params.pdtName, request.params.pdtId, {
        page,
        size,
      });
      return pageObject(content, total, { page, size }, false);
    },
  );
};

export default pdtRoutes;
