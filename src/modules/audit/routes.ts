import { Type } from 'typebox';
import { tenantContextOf } from '../../http/context.ts';
import { applySort, DataAndMeta, dataAndMeta, offsetOf, PagingQuery, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { DateTime, Nullable, readInstant, TenantParams, Uuid } from '../../wire/schemas.ts';

const AuditEvent = Type.Object({
  id: Uuid,
  occurredAt: DateTime,
  instanceId: Nullable(Uuid),
  instanceName: Nullable(Type.String()),
  actorType: Type.String({ description: 'API_CLIENT, USER or SYSTEM' }),
  actorId: Nullable(Uuid),
  actorName: Nullable(Type.String()),
  action: Type.String({ description: 'e.g. PATIENT_CREATED' }),
  entityType: Type.String(),
  entityId: Nullable(Type.String()),
  patientId: Nullable(Uuid),
  requestId: Nullable(Type.String()),
  method: Nullable(Type.String()),
  route: Nullable(Type.String()),
  changedFields: Nullable(Type.Array(Type.String())),
});

const AuditQuery = Type.Object({
  ...PagingQuery,
  instanceName: Type.Optional(Type.String()),
  actorId: Type.Optional(Uuid),
  actorType: Type.Optional(Type.Union([Type.Literal('API_CLIENT'), Type.Literal('USER'), Type.Literal('SYSTEM')])),
  action: Type.Optional(Type.String()),
  entityType: Type.Optional(Type.String()),
  entityId: Type.Optional(Type.String()),
  patientId: Type.Optional(Uuid),
  from: Type.Optional(DateTime),
  to: Type.Optional(DateTime),
});

/** Only the time can be sorted on: every audit index ends with it. */
const sortable = { occurredAt: 'a.occurred_at' };

/** DECISIONS §7: who changed what, about which patient, and when; newest first. */
const auditRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/audit-data',
    {
      config: needs('AUDIT_READ', { discloses: { none: 'audit events hold ids and field names, never values' } }),
      schema: {
        tags: ['Audit'],
        summary: 'The audit log of every write (data and meta)',
        params: TenantParams,
        querystring: AuditQuery,
        response: {
          200: DataAndMeta(AuditEvent),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      const q = request.query;
      const paging = { page: q.page, size: q.size };
      let query = ctx.db
        .selectFrom('audit_events as a')
        .leftJoin('instances as i', (join) => join.on('i.tenant_id', '=', ctx.tenant.id).onRef('i.id', '=', 'a.instance_id'))
        .where('a.tenant_id', '=', ctx.tenant.id);
      if (q.instanceName) query = query.where('i.name', '=', q.instanceName);
      if (q.actorId) query = query.where('a.actor_id', '=', q.actorId);
      if (q.actorType) query = query.where('a.actor_type', '=', q.actorType);
      if (q.action) query = query.where('a.action', '=', q.action);
      if (q.entityType) query = query.where('a.entity_type', '=', q.entityType);
      if (q.entityId) query = query.where('a.entity_id', '=', q.entityId);
      if (q.patientId) query = query.where('a.patient_id', '=', q.patientId);
      if (q.from) query = query.where('a.occurred_at', '>=', readInstant(q.from));
      if (q.to) query = query.where('a.occurred_at', '<', readInstant(q.to));
      // Events of one instant (one transaction) follow their v7 id, the tie-breaker, in the same direction.
      const [rows, count] = await Promise.all([
        applySort(
          query.selectAll('a').select('i.name as instance_name'),
          parseSort(q.sort, sortable),
          [{ column: 'a.occurred_at', direction: 'desc' }],
          'a.id',
        )
          .limit(paging.size)
          .offset(offsetOf(paging))
          .execute(),
        query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      ]);
      const events = rows.map((row) => ({
        id: row.id,
        occurredAt: row.occurred_at,
        instanceId: row.instance_id,
        instanceName: row.instance_name,
        actorType: row.actor_type,
        actorId: row.actor_id,
        actorName: row.actor_name,
        action: row.action,
        entityType: row.entity_type,
        entityId: row.entity_id,
        patientId: row.patient_id,
        requestId: row.request_id,
        method: row.method,
        route: row.route,
        changedFields: row.changed_fields,
      }));
      return dataAndMeta(events, Number(count.total), paging);
    },
  );
};

export default auditRoutes;
