import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { CdtRecord } from '../../records/cdt-view.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody } from '../../wire/schemas.ts';
import { bulkUpdateRecords, createRecord, deleteRecord, getRecord, listRecords, updateRecord } from './operations.ts';
import { CdtBulkPatch, CdtBulkResult, CdtList, CdtListQuery, CdtParams, CdtRecordParams, CdtValuesBody } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['CDT records'];
const path = '/:tenantName/:instanceName/patients/:patientId/cdts/:cdtName';

/** DECISIONS §7: a patient's records of a custom data type of the current formation. */
const cdtRoutes: AreaPlugin = async (app) => {
  app.get(
    path,
    {
      config: needs('CDT_READ', { discloses: thePatient('CDT_RECORD') }),
      schema: {
        tags,
        summary: "A patient's records of a type: {name, data: page object}",
        description:
          'sort: createdAt, updatedAt or a field of the type (by its value); default createdAt,desc. fields: the custom fields jsonBody shows. filters: `field:value` equality conditions, all of which must hold (a multiple select matches when its list holds the value). dateStart (inclusive) and dateEnd (exclusive) bound createdAt.',
        params: CdtParams,
        querystring: CdtListQuery,
        response: { 200: CdtList, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, cdtName } = request.params;
      return listRecords(ctx, patientId, cdtName, request.query);
    },
  );

  app.post(
    path,
    {
      config: needs('CDT_UPDATE', { discloses: thePatient('CDT_RECORD') }),
      schema: {
        tags,
        summary: 'Create a record',
        description:
          'Field values flat (or under jsonBody); other keys are ignored. A SINGLE_RECORD type holds one record per patient: a second is 409 DUPLICATE_VALUE.',
        params: CdtParams,
        body: CdtValuesBody,
        response: { 201: CdtRecord, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { patientId, cdtName } = request.params;
      const record = await createRecord(ctx, patientId, cdtName, request.body);
      return reply.code(201).send(record);
    },
  );

  app.patch(
    path,
    {
      config: needs('CDT_UPDATE', { discloses: thePatient('CDT_RECORD') }),
      schema: {
        tags,
        summary: 'Change many records: each row reports its own result',
        description:
          'Every row is checked first. A row with a bad id or bad values (400) or an unknown record (404) is not written, and its result holds the error array; the other rows are written together in one transaction, and their result holds the updated record (200).',
        params: CdtParams,
        body: CdtBulkPatch,
        response: { 200: CdtBulkResult, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, cdtName } = request.params;
      return bulkUpdateRecords(ctx, patientId, cdtName, request.body);
    },
  );

  app.get(
    `${path}/:recordId`,
    {
      config: needs('CDT_READ', { discloses: thePatient('CDT_RECORD') }),
      schema: { tags, summary: 'Read a record', params: CdtRecordParams, response: { 200: CdtRecord, ...errors } },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, cdtName, recordId } = request.params;
      return getRecord(ctx, patientId, cdtName, recordId);
    },
  );

  app.patch(
    `${path}/:recordId`,
    {
      config: needs('CDT_UPDATE', { discloses: thePatient('CDT_RECORD') }),
      schema: {
        tags,
        summary: 'Change the fields present in the body; null clears one',
        params: CdtRecordParams,
        body: CdtValuesBody,
        response: { 200: CdtRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, cdtName, recordId } = request.params;
      return updateRecord(ctx, patientId, cdtName, recordId, request.body);
    },
  );

  app.delete(
    `${path}/:recordId`,
    {
      config: needs('CDT_UPDATE', { discloses: thePatient('CDT_RECORD') }),
      schema: {
        tags,
        summary: 'Delete a record (200, empty body)',
        params: CdtRecordParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { patientId, cdtName, recordId } = request.params;
      await deleteRecord(ctx, patientId, cdtName, recordId);
      return reply.send();
    },
  );
};

export default cdtRoutes;
