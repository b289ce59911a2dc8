import { contextOf } from '../../../http/context.ts';
import type { AreaPlugin } from '../../../http/plugin.ts';
import { needs } from '../../../http/route-access.ts';
import { ErrorBody } from '../../../wire/errors.ts';
import { PatientParams } from '../../../wire/schemas.ts';
import { getPurge, purgeView, requestPurge } from './operations.ts';
import { PatientPurge, PurgeBody, PurgeParams } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Patients'];
// The answers name the patient by id and list what was kept: nothing of their record.
const access = needs('PATIENT_PURGE', { discloses: { none: "a purge names the patient's id only, never their data" } });

/** A patient's purge (docs/patient-purge.md): asked for with a confirmation, run by a job, followed by its id. */
const purgeRoutes: AreaPlugin = async (app) => {
  app.post(
    '/:tenantName/:instanceName/patients/:patientId/purge',
    {
      config: access,
      schema: {
        tags,
        summary: 'Purge a patient: erase every record of theirs, keeping only what the law requires',
        description:
          "`confirm` must be the patient's id, as in the path (400 PURGE_NOT_CONFIRMED otherwise). Answers 202 with the purge, `Content-Location` its URL; a job erases the patient's records in every area, their contacts, files, events, jobs and kept answers, and `kept` lists what stays and why (invoices, the audit trail, the access log). A purge already queued for the patient answers again.",
        params: PatientParams,
        body: PurgeBody,
        response: { 202: PatientPurge, ...errors },
      },
    },
    async (request, reply) => {
      const { tenantName, instanceName, patientId } = request.params;
      const row = await requestPurge(contextOf(request), patientId, request.body.confirm);
      reply.code(202).header('content-location', `/${tenantName}/${instanceName}/patient-purges/${row.id}`);
      return purgeView(row);
    },
  );

  app.get(
    '/:tenantName/:instanceName/patient-purges/:purgeId',
    {
      config: access,
      schema: {
        tags,
        summary: "A patient's purge: QUEUED, then DONE with what was kept",
        params: PurgeParams,
        response: { 200: PatientPurge, ...errors },
      },
    },
    async (request) => getPurge(contextOf(request), request.params.purgeId),
  );
};

export default purgeRoutes;
