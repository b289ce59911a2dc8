import { Type } from 'typebox';
import { eachPatient, itsPatient, thePatient } from '../../http/access-log.ts';
import { type Context, contextOf, readRecording } from '../../http/context.ts';
import { PageObject, pageObject, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { badField, ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams, uuidPattern } from '../../wire/schemas.ts';
import { sortableFields } from './fields.ts';
import { bulkUpdatePatients, createPatient, deletePatient, getPatient, relationScope, updatePatient } from './operations.ts';
import type { LookupType } from './read.ts';
import {
  Patient,
  PatientBulkPatch,
  PatientCreate,
  type PatientFilter,
  PatientFilterBody,
  PatientIdParams,
  PatientListQuery,
  PatientLookupQuery,
  PatientPatch,
} from './schemas.ts';
import { listPatients } from './store.ts';
import { patientViews } from './views.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Patients'];

/** DECISIONS §7: `type=EID|EGUID|MRN` makes the path segment an externalId, externalGuid or MRN. */
function lookup(patientId: string, type: 'EID' | 'EGUID' | 'MRN' | undefined): { key: string; type: LookupType } {
  const lookupType: LookupType = type ?? 'ID';
  if ((lookupType === 'ID' || lookupType === 'EGUID') && !uuidPattern.test(patientId)) {
    throw badField('params.patientId', lookupType === 'ID' ? 'must be a uuid (or pass type=EID|EGUID|MRN)' : 'must be a uuid');
  }
  return { key: patientId, type: lookupType };
}

const patientRoutes: AreaPlugin = async (app) => {
  const PatientPage = PageObject(Patient);

  async function page(ctx: Context, filter: PatientFilter, paging: { page: number; size: number }, sort?: string | string[]) {
    const sortKeys = parseSort(sort, sortableFields);
    const { rows, total, matches } = await listPatients(
      ctx.db,
      relationScope(ctx),
      filter,
      ctx.caller,
      paging,
      sortKeys,
      readRecording(ctx),
    );
    return pageObject(await patientViews(ctx, rows), total, paging, sortKeys.length > 0, matches);
  }

  app.get(
    '/:tenantName/:instanceName/patients',
    {
      config: needs('PATIENT_READ', { discloses: eachPatient('PATIENT', 'content', 'id') }),
      schema: {
        tags,
        summary: 'Search and list patients (page object)',
        params: InstanceParams,
        querystring: PatientListQuery,
        response: { 200: PatientPage, ...errors },
      },
    },
    async (request) => {
      const { page: pageNumber, size, sort, ...filter } = request.query;
      return page(contextOf(request), filter, { page: pageNumber, size }, sort);
    },
  );

  app.post(
    '/:tenantName/:instanceName/by-filter/patients',
    {
      config: needs('PATIENT_READ', { discloses: eachPatient('PATIENT', 'content', 'id') }),
      schema: {
        tags,
        summary: 'List patients matching a JSON filter (page object)',
        params: InstanceParams,
        querystring: Type.Object({
          page: Type.Optional(Type.Integer({ minimum: 0 })),
          size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          sort: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
        }),
        body: PatientFilterBody,
        response: { 200: PatientPage, ...errors },
      },
    },
    async (request) => {
      const { page: bodyPage, size: bodySize, sort: bodySort, ...filter } = request.body;
      const paging = { page: request.query.page ?? bodyPage ?? 0, size: request.query.size ?? bodySize ?? 20 };
      return page(contextOf(request), filter, paging, request.query.sort ?? bodySort);
    },
  );

  app.post(
    '/:tenantName/:instanceName/patients',
    {
      config: needs('PATIENT_CREATE', { discloses: itsPatient('PATIENT', 'id') }),
      schema: {
        tags,
        summary: 'Create a patient',
        description:
          'firstName and lastName are required, plus any field the formation marks required. Territories must exist in the formation, every care-team member must be a user, and exactly one member is the point of contact (the first when none is flagged).',
        params: InstanceParams,
        body: PatientCreate,
        response: { 201: Patient, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createPatient(contextOf(request), request.body);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/patients',
    {
      config: needs('PATIENT_UPDATE', { discloses: eachPatient('PATIENT', '', 'id') }),
      schema: {
        tags,
        summary: 'Change many patients at once, all or nothing',
        params: InstanceParams,
        body: PatientBulkPatch,
        response: { 200: Type.Array(Patient), ...errors },
      },
    },
    async (request) => {
      return bulkUpdatePatients(contextOf(request), request.body);
    },
  );

  app.get(
    '/:tenantName/:instanceName/patients/:patientId',
    {
      config: needs('PATIENT_READ', { discloses: thePatient('PATIENT', 'id') }),
      schema: {
        tags,
        summary: 'Read a patient by id, externalId, externalGuid or MRN',
        params: PatientIdParams,
        querystring: PatientLookupQuery,
        response: { 200: Patient, ...errors },
      },
    },
    async (request) => {
      const { key, type } = lookup(request.params.patientId, request.query.type);
      return getPatient(contextOf(request), key, type);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/patients/:patientId',
    {
      config: needs('PATIENT_UPDATE', { discloses: thePatient('PATIENT') }),
      schema: {
        tags,
        summary: 'Change the fields present in the body; others keep their values',
        params: PatientIdParams,
        querystring: PatientLookupQuery,
        body: PatientPatch,
        response: { 200: Patient, ...errors, 409: ErrorBody },
      },
    },
    async (request) => {
      const { key, type } = lookup(request.params.patientId, request.query.type);
      return updatePatient(contextOf(request), key, type, request.body);
    },
  );

  app.delete(
    '/:tenantName/:instanceName/patients/:patientId',
    {
      config: needs('PATIENT_DELETE'),
      schema: {
        tags,
        summary: 'Delete a patient and everything recorded about them',
        params: PatientIdParams,
        querystring: PatientLookupQuery,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { key, type } = lookup(request.params.patientId, request.query.type);
      await deletePatient(contextOf(request), key, type);
      return reply.send();
    },
  );
};

export default patientRoutes;
