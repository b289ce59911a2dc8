import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody } from '../../wire/schemas.ts';
import { createRecord, deleteRecord, getRecord, listRecords, saveAnswers, updateRecord } from './operations.ts';
import {
  AssessmentAnswersBody,
  AssessmentRecord,
  AssessmentRecordCreate,
  AssessmentRecordListQuery,
  AssessmentRecordPage,
  AssessmentRecordParams,
  AssessmentRecordPut,
  AssessmentRecordsParams,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Assessment records'];
const path = '/:tenantName/:instanceName/patients/:patientId/assessment-records';
const localTimes =
  "localCreatedDate, localUpdatedDate and localFinalizedDate are in the caller's time zone: a user's own, UTC (+00:00) for API clients.";

/** 001 "Assessment records" and DECISIONS §7: a patient's answers to the formation's assessments. */
const assessmentRoutes: AreaPlugin = async (app) => {
  app.get(
    path,
    {
      config: needs('ASSESSMENT_READ', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: "A patient's assessment records: page object",
        description: `statuses: NEW, IN_PROGRESS, COMPLETED (repeat or comma-separate). sort: createdAt, updatedAt or finalizedDate; default createdAt,desc. ${localTimes}`,
        params: AssessmentRecordsParams,
        querystring: AssessmentRecordListQuery,
        response: { 200: AssessmentRecordPage, ...errors },
      },
    },
    async (request) => listRecords(contextOf(request), request.params.patientId, request.query),
  );

  app.post(
    path,
    {
      config: needs('ASSESSMENT_UPDATE', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: 'Create a record (201), NEW unless status says otherwise',
        description:
          "assessmentName must be an assessment of the current formation (400 otherwise); encounterId, when given, an encounter of the same patient in this instance (404 ENCOUNTER_NOT_FOUND otherwise: another tenant's, another instance's or another patient's is not found). folderId is a free label. Answers cannot be saved here: PUT .../answers saves them. pfa (isPfa accepted too) defaults to false.",
        params: AssessmentRecordsParams,
        body: AssessmentRecordCreate,
        response: { 201: AssessmentRecord, ...errors },
      },
    },
    async (request, reply) => {
      const record = await createRecord(contextOf(request), request.params.patientId, request.body);
      return reply.code(201).send(record);
    },
  );

  app.get(
    `${path}/:assessmentRecordId`,
    {
      config: needs('ASSESSMENT_READ', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: 'Read a record',
        description: localTimes,
        params: AssessmentRecordParams,
        response: { 200: AssessmentRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, assessmentRecordId } = request.params;
      return getRecord(contextOf(request), patientId, assessmentRecordId);
    },
  );

  app.put(
    `${path}/:assessmentRecordId`,
    {
      config: needs('ASSESSMENT_UPDATE', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: 'Change a record: the body as create, or the whole record as read',
        description:
          "Keys present change; keys left out and read-only keys are ignored. assessmentName cannot change. An encounterId other than the record's own must be an encounter of the same patient in this instance (404 ENCOUNTER_NOT_FOUND). A started record cannot go back to NEW. status COMPLETED completes the record (finalizedDate, completedBy, completedByName, completedVersion), or re-completes one completed before (recompletedBy, recompletedByName, recompletedAt); every required question must be answered.",
        params: AssessmentRecordParams,
        body: AssessmentRecordPut,
        response: { 200: AssessmentRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, assessmentRecordId } = request.params;
      return updateRecord(contextOf(request), patientId, assessmentRecordId, request.body);
    },
  );

  app.put(
    `${path}/:assessmentRecordId/answers`,
    {
      config: needs('ASSESSMENT_UPDATE', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: 'Save answers: flat "<cdtName>__<fieldName>" keys',
        description:
          "Each value is checked by its question's type; an unknown key or a wrong type is 400 VALIDATION_ERROR naming body.<key>. Keys present are saved (null clears one), keys left out keep their answers, and the scoring is computed again. A NEW record becomes IN_PROGRESS; so does a COMPLETED one whose answers change (complete it again to re-complete).",
        params: AssessmentRecordParams,
        body: AssessmentAnswersBody,
        response: { 200: AssessmentRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, assessmentRecordId } = request.params;
      return saveAnswers(contextOf(request), patientId, assessmentRecordId, request.body);
    },
  );

  app.delete(
    `${path}/:assessmentRecordId`,
    {
      config: needs('ASSESSMENT_UPDATE', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: 'Delete a record (200, empty body)',
        params: AssessmentRecordParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, assessmentRecordId } = request.params;
      await deleteRecord(contextOf(request), patientId, assessmentRecordId);
      return reply.send();
    },
  );
};

export default assessmentRoutes;
