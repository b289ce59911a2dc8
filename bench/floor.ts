/**
 * The floor: bare Fastify and pg, no framework features (no authentication, validation, schema
 * serialization, audit of anything but the create, nor the patient's relations), doing the least
 * SQL that could answer each scenario, in one statement each:
 * - get: one indexed select of the patient row, returned as JSON;
 * - create: the patient row and one audit row, inserted by one statement (one implicit transaction);
 * - list and search: one statement returning the page and its total.
 * Cairn ÷ floor is how far Cairn is from what the database allows.
 */
import cluster from 'node:cluster';
import Fastify from 'fastify';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';

const workers = Number(process.env.WORKERS ?? 2);

async function worker() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c jit=off' });
  const instances = new Map<string, { tenantId: string; instanceId: string }>();
  for (const key of (process.env.BASELINE_TENANTS ?? '').split(',').filter(Boolean)) {
    const [tenantName = '', instanceName = ''] = key.split('/');
    const { rows } = await pool.query(
      'SELECT i.tenant_id, i.id FROM tenants t JOIN instances i ON i.tenant_id = t.id WHERE t.name = $1 AND i.name = $2',
      [tenantName, instanceName],
    );
    if (!rows[0]) throw new Error(`floor: no ${key}`);
    instances.set(key, { tenantId: rows[0].tenant_id, instanceId: rows[0].id });
  }
  const scope = (params: { tenantName: string; instanceName: string }) => {
    const found = instances.get(`${params.tenantName}/${params.instanceName}`);
    if (!found) throw new Error('unknown tenant');
    return found;
  };

  const app = Fastify({ logger: false });
  const json = { 'content-type': 'application/json' };

  app.get('/:tenantName/:instanceName/patients/:id', async (request, reply) => {
    const params = request.params as { tenantName: string; instanceName: string; id: string };
    const { tenantId, instanceId } = scope(params);
    const { rows } = await pool.query(
      'SELECT row_to_json(p)::text AS body FROM patients p WHERE tenant_id = $1 AND instance_id = $2 AND id = $3',
      [tenantId, instanceId, params.id],
    );
    return rows[0] ? reply.headers(json).send(rows[0].body) : reply.code(404).send([]);
  });

  app.get('/:tenantName/:instanceName/patients', async (request, reply) => {
    const { tenantId, instanceId } = scope(request.params as { tenantName: string; instanceName: string });
    const query = request.query as Record<string, string>;
    const size = Number(query.size ?? 20);
    const offset = Number(query.page ?? 0) * size;
    let sql: string;
    let values: unknown[];
    if (query.search) {
      // The matches first (the trigram index), then the page of them and their count.
      sql = `WITH m AS MATERIALIZED (
          SELECT id, created_at FROM patients
          WHERE tenant_id = $1 AND instance_id = $2 AND search_text LIKE $3)
        SELECT json_build_object(
          'totalElements', (SELECT count(*) FROM m),
          'content', coalesce((SELECT json_agg(row_to_json(p) ORDER BY p.created_at DESC, p.id DESC)
            FROM patients p JOIN (SELECT id FROM m ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5) x
            ON p.tenant_id = $1 AND p.id = x.id), '[]'))::text AS body`;
      values = [tenantId, instanceId, `%${query.search.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`, size, offset];
    } else {
      sql = `WITH f AS (
          SELECT p.* FROM patients p
          WHERE p.tenant_id = $1 AND p.instance_id = $2
            AND EXISTS (SELECT 1 FROM patient_care_team ct WHERE ct.tenant_id = p.tenant_id AND ct.patient_id = p.id AND ct.user_id = $3))
        SELECT json_build_object(
          'totalElements', (SELECT count(*) FROM f),
          'content', coalesce((SELECT json_agg(row_to_json(x)) FROM
            (SELECT * FROM f ORDER BY last_name ASC, id ASC LIMIT $4 OFFSET $5) x), '[]'))::text AS body`;
      values = [tenantId, instanceId, query.careTeamMemberId, size, offset];
    }
    const { rows } = await pool.query(sql, values);
    return reply.headers(json).send(rows[0].body);
  });

  app.post('/:tenantName/:instanceName/patients', async (request, reply) => {
    const { tenantId, instanceId } = scope(request.params as { tenantName: string; instanceName: string });
    const body = request.body as { firstName: string; lastName: string; email?: string; phone?: string; birthDate?: string };
    const id = uuidv7();
    const searchText = [body.firstName, body.lastName, body.email, body.phone].filter(Boolean).join(' ').toLowerCase();
    const { rows } = await pool.query(
      `WITH p AS (
         INSERT INTO patients (tenant_id, instance_id, id, external_guid, first_name, last_name, email, phone, birth_date,
           gender, marital_status, primary_language, search_text, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'UNKNOWN', 'UKN', 'ENGLISH', $10, now(), now())
         RETURNING *),
       a AS (
         INSERT INTO audit_events (tenant_id, id, instance_id, actor_type, actor_name, action, entity_type, entity_id, patient_id)
         VALUES ($1, $11, $2, 'API_CLIENT', 'floor', 'PATIENT_CREATED', 'PATIENT', $3::text, $3))
       SELECT row_to_json(p)::text AS body FROM p`,
      [
        tenantId,
        instanceId,
        id,
        uuidv7(),
        body.firstName,
        body.lastName,
        body.email ?? null,
        body.phone ?? null,
        body.birthDate ?? null,
        searchText,
        uuidv7(),
      ],
    );
    return reply.code(201).headers(json).send(rows[0].body);
  });

  app.get('/none', async () => ({}));
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
