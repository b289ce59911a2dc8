import { type SqlBool, sql } from 'kysely';
import { type Static, Type } from 'typebox';
import type { Row } from '../../db/schema.ts';
import type { TenantContext } from '../../http/context.ts';
import { dataAndMeta, offsetOf, PagingQuery } from '../../http/pagination.ts';
import { DateTime, Nullable, readInstant, Uuid } from '../../wire/schemas.ts';

export const AccessRecord = Type.Object({
  id: Uuid,
  occurredAt: DateTime,
  instanceId: Nullable(Uuid),
  actorType: Type.String({
    description: 'API_CLIENT or USER; APP (an app acting for the user `onBehalfOf` names); LINK, WEBHOOK or SYSTEM',
  }),
  actorId: Nullable(Uuid),
  actorName: Nullable(Type.String()),
  onBehalfOf: Nullable(Type.String({ description: 'Whose link or grant the caller used, when not its own' })),
  clientAddress: Nullable(Type.String()),
  requestId: Nullable(Type.String({ description: "Cairn's own id of the request: the answer's `X-Request-Id`" })),
  callerRequestId: Nullable(
    Type.String({
      description: "The caller's own `X-Request-Id`, when it was 1 to 128 characters of letters, digits and `._:+=/-`",
    }),
  ),
  operation: Type.String({ description: 'The route: `GET /{tenantName}/{instanceName}/patients/{patientId}`' }),
  resourceType: Type.String({ description: 'What the answer carried: PATIENT, ENCOUNTER, FILE, ...' }),
  patientIds: Type.Array(Uuid),
  recordIds: Nullable(Type.Array(Type.String())),
  outcome: Type.Integer({ description: 'The HTTP status answered: 2xx disclosed, 403 and 404 attempts' }),
  matched: Nullable(
    Type.Integer({
      description:
        'The total the answer showed (a page’s `totalElements`, a FHIR count): how many records matched its filter. The matching patients are named in `patientIds` when there were at most 100.',
    }),
  ),
});

const filters = {
  actorId: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'A caller: its own reads, and those made with its credential (an app acting for the user, a link it issued)',
    }),
  ),
  operation: Type.Optional(Type.String({ description: 'The route, as `operation` shows it' })),
  from: Type.Optional(DateTime),
  to: Type.Optional(DateTime),
};

export const PatientAccessQuery = Type.Object({ ...PagingQuery, ...filters });
export const TenantAccessQuery = Type.Object({ ...PagingQuery, ...filters, patientId: Type.Optional(Uuid) });
export type AccessQuery = Static<typeof TenantAccessQuery> & { instanceId?: string };

/**
 * A page of the log, newest first. By patient it reads the records the GIN index on `patient_ids`
 * names, and by caller the actor index (tenant, actor, time): either question is one indexed read.
 */
export async function accessPage(ctx: TenantContext, q: AccessQuery) {
  const paging = { page: q.page, size: q.size };
  const tenantId = ctx.tenant.id;
  let query = ctx.db.selectFrom('access_log as a').where('a.tenant_id', '=', tenantId);
  // A GIN index on patient_ids serves it: the records naming the patient, then in time order.
  if (q.patientId) query = query.where(sql<SqlBool>`a.patient_ids @> ARRAY[${q.patientId}]::uuid[]`);
  if (q.instanceId) query = query.where('a.instance_id', '=', q.instanceId);
  // A caller's own reads, and those made with its credential: an app's for a user, a link's for its issuer.
  if (q.actorId) {
    const on = [`USER:${q.actorId}`, `API_CLIENT:${q.actorId}`];
    query = query.where((eb) => eb.or([eb('a.actor_id', '=', q.actorId as string), eb('a.on_behalf_of', 'in', on)]));
  }
  if (q.operation) query = query.where('a.operation', '=', q.operation);
  if (q.from) query = query.where('a.occurred_at', '>=', readInstant(q.from));
  if (q.to) query = query.where('a.occurred_at', '<', readInstant(q.to));
  const [rows, count] = await Promise.all([
    query
      .selectAll('a')
      .orderBy('a.occurred_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(paging.size)
      .offset(offsetOf(paging))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return dataAndMeta(rows.map(accessView), Number(count.total), paging);
}

/** A record as the API shows it. */
export function accessView(row: Row<'access_log'>) {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    instanceId: row.instance_id,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorName: row.actor_name,
    onBehalfOf: row.on_behalf_of,
    clientAddress: row.client_address,
    requestId: row.request_id,
    callerRequestId: row.caller_request_id,
    operation: row.operation,
    resourceType: row.resource_type,
    patientIds: row.patient_ids,
    recordIds: row.record_ids,
    outcome: row.outcome,
    matched: row.matched,
  };
}
