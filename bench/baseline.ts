/**
 * The bare baseline: a minimal Fastify app that runs the same SQL as Cairn's patient routes (it
 * calls the same store and view functions) through pg, with no authentication, validation,
 * schema serialization, transaction or audit. Cairn ÷ baseline is Cairn's own overhead.
 */
import cluster from 'node:cluster';
import Fastify from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { DB } from '../src/db/schema.ts';
import type { Formation } from '../src/formation/schemas.ts';
import { loadFormation } from '../src/formation/store.ts';
import type { Context } from '../src/http/context.ts';
import { pageObject } from '../src/http/pagination.ts';
import { searchText } from '../src/modules/patients/rules.ts';
import { findPatient, listPatients } from '../src/modules/patients/store.ts';
import { patientViews } from '../src/modules/patients/views.ts';
import { findInstanceByName, findTenantByName, type Instance } from '../src/tenancy/tenancy.ts';

const workers = Number(process.env.WORKERS ?? 2);
const caller = { type: 'API_CLIENT' as const, id: '00000000-0000-0000-0000-000000000000', tenantId: '', name: 'baseline' };

async function worker() {
  pg.types.setTypeParser(pg.types.builtins.INT8, Number);
  pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }) }),
  });
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
  // The part of a request context the patient views read: no caller, no audit, the formation at hand.
  const contextOf = (instance: Instance, formation: Formation) =>
    ({
      db,
      instance,
      scope: { tenantId: instance.tenantId, instanceId: instance.id },
      formation: async () => formation,
    }) as unknown as Context;

  const app = Fastify({ logger: false });
  app.get('/:tenantName/:instanceName/patients/:id', async (request, reply) => {
    const params = request.params as { tenantName: string; instanceName: string; id: string };
    const { instance, formation } = scope(params);
    const row = await findPatient(db, { tenantId: instance.tenantId, instanceId: instance.id }, params.id);
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
    const { rows, total } = await listPatients(
      db,
      { tenantId: instance.tenantId, instanceId: instance.id },
      filter,
      caller,
      paging,
      sort,
    );
    return pageObject(await patientViews(contextOf(instance, formation), rows), total, paging, sort.length > 0);
  });
  app.post('/:tenantName/:instanceName/patients', async (request, reply) => {
    const { instance, formation } = scope(request.params as { tenantName: string; instanceName: string });
    const body = request.body as { firstName: string; lastName: string; email?: string; phone?: string; birthDate?: string };
    const row = await db
      .insertInto('patients')
      .values({
        tenant_id: instance.tenantId,
        instance_id: instance.id,
        id: uuidv7(),
        external_guid: uuidv7(),
        first_name: body.firstName,
        last_name: body.lastName,
        email: body.email ?? null,
        phone: body.phone ?? null,
        birth_date: body.birthDate ?? null,
        gender: 'UNKNOWN',
        marital_status: 'UKN',
        primary_language: 'ENGLISH',
        search_text: searchText({
          firstName: body.firstName,
          middleName: null,
          lastName: body.lastName,
          phone: body.phone ?? null,
          secondaryPhone: null,
          email: body.email ?? null,
          secondaryEmail: null,
          mrn: null,
          nric: null,
          accessCode: null,
        }),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    reply.code(201);
    const [view] = await patientViews(contextOf(instance, formation), [row]);
    return view;
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
