import { contextOf, tenantContextOf } from '../../http/context.ts';
import { DataAndMeta } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { PatientParams, TenantParams } from '../../wire/schemas.ts';
import { type AccessQuery, AccessRecord, accessPage, PatientAccessQuery, TenantAccessQuery } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/**
 * Reading the log is not itself logged: its records hold ids and metadata, no patient data
 * (DECISIONS "Access log").
 */
const metadataOnly = { none: 'access records hold ids and metadata, never patient data' };

const accessLogRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/access-log',
    {
      config: needs('ACCESS_LOG_READ', { discloses: metadataOnly }),
      schema: {
        tags: ['Access log'],
        summary: "Who saw which patients' data, and when (data and meta, newest first)",
        params: TenantParams,
        querystring: TenantAccessQuery,
        response: { 200: DataAndMeta(AccessRecord), ...errors },
      },
    },
    async (request) => accessPage(tenantContextOf(request), request.query as AccessQuery),
  );

  app.get(
    '/:tenantName/:instanceName/patients/:patientId/access-log',
    {
      config: needs('ACCESS_LOG_READ', { discloses: metadataOnly }),
      schema: {
        tags: ['Access log'],
        summary: "Everyone who saw this patient's data, and when (data and meta, newest first)",
        params: PatientParams,
        querystring: PatientAccessQuery,
        response: { 200: DataAndMeta(AccessRecord), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId } = request.params;
      // The patient of this instance; a deleted patient's history is read on the tenant's log (?patientId=).
      await requirePatient(ctx, patientId);
      return accessPage(ctx, { ...(request.query as AccessQuery), patientId, instanceId: ctx.instance.id });
    },
  );
};

export default accessLogRoutes;
