/**
 * The same-SQL baseline: a minimal Fastify app that runs the same SQL as Cairn's patient routes
 * (it calls the same operations, store and view functions) through pg, with no authentication,
 * request validation, response schema or hooks. Cairn ÷ same SQL is the framework's own cost.
 */
import cluster from 'node:cluster';
import Fastify from 'fastify';
import { areas } from '../src/areas.ts';
import { openDatabase } from '../src/db/database.ts';
import { systemActor } from '../src/events/audit.ts';
import type { Formation } from '../src/formation/schemas.ts';
import { loadFormation } from '../src/formation/store.ts';
import type { Context } from '../src/http/context.ts';
import { pageObject } from '../src/http/pagination.ts';
import { systemClock } from '../src/http/services.ts';
import { createPatient } from '../src/modules/patients/operations.ts';
import { readPatient } from '../src/modules/patients/read.ts';
import type { PatientInput } from '../src/modules/patients/schemas.ts';
import { listPatients } from '../src/modules/patients/store.ts';
import { patientViews } from '../src/modules/patients/views.ts';
import { mergeAreas } from '../src/platform/area.ts';
import { findInstanceByName, findTenantByName, type Instance } from '../src/tenancy/tenancy.ts';

const workers = Number(process.env.WORKERS ?? 2);
const caller = { type: 'API_CLIENT' as const, id: '00000000-0000-0000-0000-000000000000', tenantId: '', name: 'baseline' };

async function worker() {
  // Audit actions and error codes are known once the areas are merged, as in the app.
  mergeAreas(areas);
  // Cairn's own database access: the same pool settings and prepared statements.
  const { db } = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? '', dataDir: '', poolSize: 10 });
  // Tenancy and formation are looked up once; Cairn looks them up per request (through its cache).
  const instances = new Map<
    string,
    { instance: NonNullable<Awaited<ReturnType<typeof findInstanceByName>>>; formation: Formation }
  >();
  for (const key of (process.env.BASELINE_TENANTS ?? '').split(',').filter(Boolean)) {
    const [tenantName = '', instanceName = ''] = key.split('/');
    const tenant = await findTenantByName(db, tenantName);
    const instance = tenant && (await findInstanceByName(db, tenant.id, instanceName));
    if (!instance) throw new Error(`baseline: no ${key}`);
    const formation = (await loadFormation(db, tenant.id, instance.id, instance.currentFormationVersion ?? 1))
      ?.document as Formation;
    instances.set(key, { instance, formation });
  }
  const scope = (params: { tenantName: string; instanceName: string }) => {
    const found = instances.get(`${params.tenantName}/${params.instanceName}`);
    if (!found) throw new Error('unknown tenant');
    return found;
  };
  // What the unit of work reads of the services: the clock, and job workers to wake (none here: the
  // baseline runs no background work; the outbox rows its writes make are left in the table).
  const services = { clock: systemClock, dbKind: 'postgres', jobs: { signal() {}, wake() {}, following: () => [] } };
  // The part of a request context the patient operations read: the formation at hand, a fixed actor.
  const contextOf = (instance: Instance, formation: Formation) =>
    ({
      db,
      services,
      instance,
      scope: { tenantId: instance.tenantId, instanceId: instance.id },
      actor: { ...systemActor(instance.tenantId, instance.id), name: 'baseline' },
      formation: async () => formation,
    }) as unknown as Context;
  const relationsOf = (instance: Instance) => ({
    tenantId: instance.tenantId,
    instanceId: instance.id,
    instanceName: instance.name,
  });

  const app = Fastify({ logger: false });
  app.get('/:tenantName/:instanceName/patients/:id', async (request, reply) => {
    const params = request.params as { tenantName: string; instanceName: string; id: string };
    const { instance, formation } = scope(params);
    const row = await readPatient(db, relationsOf(instance), params.id);
    if (!row) return reply.code(404).send([]);
    const [view] = await patientViews(contextOf(instance, formation), [row]);
    return view;
  });
  app.get('/:tenantName/:instanceName/patients', async (request) => {
    const { instance, formation } = scope(request.params as { tenantName: string; instanceName: string });
    const query = request.query as Record<string, string>;
    const paging = { page: Number(query.page ?? 0), size: Number(query.size ?? 20) };
    const [field, direction] = (query.sort ?? '').split(',');
    const sort = field
      ? [{ column: `p.${field === 'lastName' ? 'last_name' : 'created_at'}`, direction: (direction ?? 'asc') as 'asc' | 'desc' }]
      : [];
    const filter = {
      search: query.search,
      careTeamMemberId: query.careTeamMemberId,
      region: query.region,
      timezone: query.timezone,
    };
    const { rows, total } = await listPatients(db, relationsOf(instance), filter, caller, paging, sort);
    return pageObject(await patientViews(contextOf(instance, formation), rows), total, paging, sort.length > 0);
  });
  app.post('/:tenantName/:instanceName/patients', async (request, reply) => {
    const { instance, formation } = scope(request.params as { tenantName: string; instanceName: string });
    reply.code(201);
    return createPatient(contextOf(instance, formation), request.body as PatientInput);
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
}

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  worker().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
