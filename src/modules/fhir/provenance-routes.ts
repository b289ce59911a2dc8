import { Type } from 'typebox';
import { disclose, named } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { isUuid } from '../../http/fhir.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needsAnyOf } from '../../http/route-access.ts';
import { ApiError } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { negotiateFormat } from './format.ts';
import { FHIR_JSON, fhirResponses, useFhirErrors } from './outcome.ts';
import { auditSources, PROVENANCE, provenanceOf, readableTarget } from './provenance.ts';
import { FHIR_BASE } from './routes.ts';

const ReadParams = Type.Object({ ...InstanceParams.properties, id: Type.String({ maxLength: 64 }) });

/**
 * `GET Provenance/{id}` (US Core: SHALL read): an audit row about a record served as FHIR, to a
 * caller who may read that record. No permission of its own: the route opens for a caller holding
 * any served type's read permission, and each Provenance answers only where its target's own read
 * would (its permission, a SMART token's scope and compartment); anything else is 404, as a missing
 * one, so a caller learns nothing of records it may not read. A SMART token needs `Provenance.r`.
 */
const provenanceRoutes: AreaPlugin = async (app, { fhir }) => {
  useFhirErrors(app);
  app.addHook('onRequest', negotiateFormat);
  const bySource = auditSources(fhir);
  const permissions = [...new Set([...bySource.values()].flat().map((source) => source.permission))];

  app.get(
    `${FHIR_BASE}/${PROVENANCE}/:id`,
    {
      config: needsAnyOf(permissions, { discloses: named('PROVENANCE'), scope: `${PROVENANCE}.r` }),
      schema: {
        tags: ['FHIR R4'],
        summary: 'A Provenance (us-core-provenance), by id: who changed a record and when, from the audit log',
        description:
          "Readable where its target is: the target type's read permission, and a SMART token's scope and compartment for it.",
        params: ReadParams,
        response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const ctx = contextOf(request);
      const row = isUuid(id)
        ? await ctx.db
            .selectFrom('audit_events')
            .selectAll()
            .where('tenant_id', '=', ctx.scope.tenantId)
            .where('id', '=', id)
            .executeTakeFirst()
        : undefined;
      const target = row && (await readableTarget(ctx, bySource, row));
      if (!row || !target) throw new ApiError('PROVENANCE_NOT_FOUND', { id });
      disclose(request, [row.patient_id], [row.id]);
      reply.type(FHIR_JSON);
      return provenanceOf(row, target.type, ctx.scope.instanceId);
    },
  );
};

export default provenanceRoutes;
