import fs from 'node:fs';
import { SingleBar } from 'cli-progress';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { systemActor } from '../events/audit.ts';
import { findInstanceByName, findTenantByName, type Instance, type Tenant } from '../http/tenancy.ts';
import { applyFormation } from '../modules/formation/operations.ts';
import { createInstance, createTenant } from '../modules/tenants/store.ts';
import type { Services } from '../services.ts';
import { demoFormationPath } from './bootstrap.ts';
import { firstNames, lastNames, places } from './seed-names.ts';

/**
 * `cairn seed bulk`: loads realistic, varied scale data into one tenant, fast. Rows are made by
 * PostgreSQL itself from generate_series in batches (no data crosses the wire), and for large
 * loads the secondary indexes are dropped first and built once at the end, which is several
 * times faster than maintaining forty indexes row by row. Do not point it at a production
 * database: it rebuilds indexes of the tables it loads.
 */

export interface BulkOptions {
  tenant: string;
  instance: string;
  patients: number;
  tasks: number;
  /** Care coordinators; default one per 500 patients (a caseload stays the same as data grows). */
  users?: number;
  batchSize: number;
  keepIndexes: boolean;
}

export interface BulkResult {
  tenant: Tenant;
  instance: Instance;
  seconds: number;
  rows: Record<string, number>;
}

/** Loads at or above this many rows rebuild indexes instead of maintaining them. */
const INDEX_REBUILD_THRESHOLD = 50_000;
const bulkTables = ['patients', 'patient_care_team', 'patient_programs', 'tasks'] as const;

export async function seedBulk(services: Services, options: BulkOptions): Promise<BulkResult> {
  const started = Date.now();
  const { db } = services;
  const tenant = (await findTenantByName(db, options.tenant)) ?? (await createTenant(db, options.tenant));
  let instance = await findInstanceByName(db, tenant.id, options.instance);
  if (!instance) {
    const created = await createInstance(db, tenant, options.instance);
    await applyFormation(
      services,
      created.id,
      systemActor(tenant.id, created.id),
      JSON.parse(fs.readFileSync(demoFormationPath, 'utf8')),
    );
    instance = (await findInstanceByName(db, tenant.id, options.instance))!;
  }
  const userCount = options.users ?? Math.max(10, Math.ceil(options.patients / 500));
  const rows: Record<string, number> = {};

  const rebuild = !options.keepIndexes && options.patients + options.tasks >= INDEX_REBUILD_THRESHOLD;
  const dropped = rebuild ? await dropSecondaryIndexes(db) : [];
  try {
    const offset = await existingPatientCount(db, tenant.id, instance.id);
    rows.users = await seedUsers(db, tenant, instance, userCount, offset);
    rows.patients = await inBatches('patients', options.patients, options.batchSize, (from, to) =>
      insertPatients(db, tenant, instance, offset + from, offset + to, userCount),
    );
    rows.tasks = await inBatches('tasks', options.tasks, options.batchSize, (from, to) =>
      insertTasks(db, tenant, instance, offset, offset + options.patients, from, to, userCount),
    );
  } finally {
    if (dropped.length > 0) await rebuildIndexes(db, dropped);
  }
  await sql`ANALYZE patients, patient_care_team, patient_programs, tasks, users`.execute(db);
  return { tenant, instance, seconds: (Date.now() - started) / 1000, rows };
}

async function existingPatientCount(db: Kysely<DB>, tenantId: string, instanceId: string): Promise<number> {
  const { count } = await db
    .selectFrom('patients')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('instance_id', '=', instanceId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Runs `load` over [0, total) in batches, with a progress bar and a rows-per-second readout. */
async function inBatches(label: string, total: number, batchSize: number, load: (from: number, to: number) => Promise<void>) {
  if (total <= 0) return 0;
  const bar = new SingleBar({
    format: `${label.padEnd(9)} [{bar}] {percentage}% | {value}/{total} | {rate} rows/s | {duration}s`,
    barsize: 30,
    hideCursor: true,
    stream: process.stderr,
    // Without a terminal (CI, logs), print a line every few seconds instead of redrawing.
    noTTYOutput: true,
    notTTYSchedule: 5000,
  });
  const started = Date.now();
  bar.start(total, 0, { rate: 0 });
  for (let from = 0; from < total; from += batchSize) {
    const to = Math.min(total, from + batchSize);
    await load(from, to);
    bar.update(to, { rate: Math.round(to / Math.max((Date.now() - started) / 1000, 0.001)) });
  }
  bar.stop();
  return total;
}

/**
 * A time-ordered (version 7 layout) uuid made in SQL from a sequence number, so rows keep the
 * index locality that the API's own uuidv7 ids have, and re-deriving a row's id needs no lookup.
 */
function seededUuid(sequence: string, salt: string, baseMs: number) {
  return sql<string>`(
    lpad(to_hex(${sql.lit(baseMs)}::bigint + ${sql.raw(sequence)}), 12, '0') || '7' ||
    substr(md5(${sql.lit(salt)} || ${sql.raw(sequence)}), 1, 3) || '8' ||
    substr(md5(${sql.lit(salt)} || ${sql.raw(sequence)}), 4, 15)
  )::uuid`;
}

/** Ids are derived from the tenant, so several bulk tenants in one database never collide. */
function baseMs(tenant: Tenant, kind: number): number {
  const seed = Number.parseInt(tenant.id.replaceAll('-', '').slice(20, 28), 16);
  return 1_600_000_000_000 + (seed % 100_000) * 10_000_000_000 + kind * 2_000_000_000;
}

const userId = (tenant: Tenant, sequence: string) => seededUuid(sequence, `${tenant.id}u`, baseMs(tenant, 1));
const patientId = (tenant: Tenant, sequence: string) => seededUuid(sequence, `${tenant.id}p`, baseMs(tenant, 2));

async function seedUsers(db: Kysely<DB>, tenant: Tenant, instance: Instance, count: number, offset: number): Promise<number> {
  if (offset > 0) return 0;
  await sql`
    INSERT INTO users (tenant_id, id, username, email, first_name, last_name, timezone, seats, application_access_id, user_state)
    SELECT ${tenant.id}::uuid, ${userId(tenant, 'u')}, 'coordinator' || u, 'coordinator' || u || '@care.example',
      (${sql.val(firstNames)}::text[])[1 + (u * 7) % ${firstNames.length}],
      (${sql.val(lastNames)}::text[])[1 + (u * 13) % ${lastNames.length}],
      (ARRAY['US/Pacific', 'US/Eastern'])[1 + u % 2], ARRAY['GENERAL'], gen_random_uuid(), 'ACTIVE'
    FROM generate_series(0, ${count - 1}::int) AS u
    ON CONFLICT DO NOTHING
  `.execute(db);
  await sql`
    INSERT INTO access_grants (tenant_id, principal_id, principal_type, instance_id, grant_type, name, primary_role)
    SELECT ${tenant.id}::uuid, ${userId(tenant, 'u')}, 'USER', ${instance.id}::uuid, 'SECURITY_ROLE', 'care-coordinator', true
    FROM generate_series(0, ${count - 1}::int) AS u
    ON CONFLICT DO NOTHING
  `.execute(db);
  await sql`
    INSERT INTO user_territories (tenant_id, user_id, id, territories)
    SELECT ${tenant.id}::uuid, ${userId(tenant, 'u')}, gen_random_uuid(),
      jsonb_build_array(jsonb_build_object('name', (ARRAY['west', 'east'])[1 + u % 2], 'territories', '[]'::jsonb,
        'instanceName', ${instance.name}::text, 'createdAt', now(), 'updatedAt', now(), 'createdBy', null, 'updatedBy', null))
    FROM generate_series(0, ${count - 1}::int) AS u
    ON CONFLICT DO NOTHING
  `.execute(db);
  return count;
}

/**
 * One batch of patients with their care teams (one or two coordinators of the patient's region,
 * the first the point of contact) and, for three in ten, a diabetes-programme enrolment.
 */
async function insertPatients(db: Kysely<DB>, tenant: Tenant, instance: Instance, from: number, to: number, users: number) {
  const h = (salt: number) => sql.raw(`abs(hashtext(i::text || '${salt}'))`);
  await db.transaction().execute(async (trx) => {
    await sql`
      INSERT INTO patients (
        tenant_id, instance_id, id, external_guid, external_id, mrn, first_name, middle_name, last_name, birth_date,
        gender, marital_status, primary_language, email, phone, city, state, zip, country, timezone,
        patient_region, patient_territory, regions, territories, search_text, created_at, updated_at,
        created_by_name, updated_by_name)
      SELECT ${tenant.id}::uuid, ${instance.id}::uuid, ${patientId(tenant, 'i')}, gen_random_uuid(), 'EXT-' || i, 'MRN' || lpad(i::text, 9, '0'),
        f, m, l, date '1930-01-01' + ${h(1)} % 27000,
        (ARRAY['FEMALE', 'MALE', 'OTHER', 'UNKNOWN'])[1 + ${h(2)} % 4], (ARRAY['M', 'S', 'D', 'W', 'UKN'])[1 + ${h(3)} % 5], 'ENGLISH',
        lower(f || '.' || l || i || '@mail.example'), phone, city, st, zip, 'US', tz, region, territory,
        ARRAY[region], ARRAY[territory],
        lower(concat_ws(E'\\n', concat_ws(' ', f, m, l), CASE WHEN m IS NOT NULL THEN f || ' ' || l END, phone,
          f || '.' || l || i || '@mail.example', 'MRN' || lpad(i::text, 9, '0'))),
        now() - make_interval(secs => ${h(4)} % 94608000), now() - make_interval(secs => ${h(5)} % 2592000),
        'SYSTEM:seed', 'SYSTEM:seed'
      FROM (
        SELECT i,
          (${sql.val(firstNames)}::text[])[1 + ${h(6)} % ${firstNames.length}] AS f,
          CASE WHEN ${h(7)} % 3 = 0 THEN (${sql.val(firstNames)}::text[])[1 + ${h(8)} % ${firstNames.length}] END AS m,
          (${sql.val(lastNames)}::text[])[1 + ${h(9)} % ${lastNames.length}] AS l,
          '+1' || (${sql.val(places.map((p) => p.areaCode))}::text[])[1 + i % ${places.length}] ||
            (200 + ${h(10)} % 800)::text || lpad((${h(11)} % 10000)::text, 4, '0') AS phone,
          (${sql.val(places.map((p) => p.city))}::text[])[1 + i % ${places.length}] AS city,
          (${sql.val(places.map((p) => p.state))}::text[])[1 + i % ${places.length}] AS st,
          (${sql.val(places.map((p) => p.zip))}::text[])[1 + i % ${places.length}] AS zip,
          (${sql.val(places.map((p) => p.timezone))}::text[])[1 + i % ${places.length}] AS tz,
          (${sql.val(places.map((p) => p.region))}::text[])[1 + i % ${places.length}] AS region,
          (${sql.val(places.map((p) => p.territory))}::text[])[1 + i % ${places.length}] AS territory
        FROM generate_series(${from}::int, ${to - 1}::int) AS i
      ) generated
    `.execute(trx);
    await sql`
      -- Coordinators serve one region each (even: west, odd: east), like the patients' places.
      INSERT INTO patient_care_team (tenant_id, patient_id, user_id, point_of_contact, position)
      SELECT ${tenant.id}::uuid, ${patientId(tenant, 'i')}, ${userId(tenant, 'u')}, member = 0, member
      FROM generate_series(${from}::int, ${to - 1}::int) AS i,
        LATERAL (SELECT member,
          (2 * ((abs(hashtext(i::text || 'c')) + member * 7) % greatest(${users}::int / 2, 1)) +
            (${sql.val(places.map((p) => (p.region === 'west' ? 0 : 1)))}::int[])[1 + i % ${places.length}]) % ${users}::int AS u
          FROM generate_series(0, CASE WHEN abs(hashtext(i::text || 'n')) % 4 = 0 THEN 1 ELSE 0 END) AS member) team
      ON CONFLICT DO NOTHING
    `.execute(trx);
    await sql`
      INSERT INTO patient_programs (tenant_id, id, instance_id, patient_id, program_name, status, current_phase, path_history,
        created_by_name, updated_by_name)
      SELECT ${tenant.id}::uuid, gen_random_uuid(), ${instance.id}::uuid, ${patientId(tenant, 'i')}, 'diabetes-management', 'IN_PROGRESS',
        phase, jsonb_build_array(phase), 'SYSTEM:seed', 'SYSTEM:seed'
      FROM generate_series(${from}::int, ${to - 1}::int) AS i,
        LATERAL (SELECT jsonb_build_object('timestamp', now(), 'createdBy', null, 'createdByName', 'SYSTEM:seed',
          'name', 'active-coaching', 'title', 'Active coaching', 'description', 'Weekly calls', 'currentVersion', '1',
          'deleted', false) AS phase) p
      WHERE abs(hashtext(i::text || 'p')) % 10 < 3
    `.execute(trx);
  });
}

/** One batch of tasks on the loaded patients, assigned to coordinators, with varied states and dates. */
async function insertTasks(
  db: Kysely<DB>,
  tenant: Tenant,
  instance: Instance,
  firstPatient: number,
  endPatient: number,
  from: number,
  to: number,
  users: number,
) {
  const span = Math.max(endPatient - firstPatient, 1);
  const names = [
    'Follow-up call',
    'Medication review',
    'Schedule lab work',
    'Check glucose log',
    'Send education material',
    'Arrange transport',
    'Confirm appointment',
    'Update care plan',
  ];
  await sql`
    INSERT INTO tasks (tenant_id, instance_id, id, name, description, due_date, status, priority, priority_rank,
      patient_id, assignee_id, template_name, search_text, created_at, updated_at, created_by_name, updated_by_name)
    SELECT ${tenant.id}::uuid, ${instance.id}::uuid, gen_random_uuid(), name, description,
      now() + make_interval(days => abs(hashtext(t::text || 'd')) % 120 - 30),
      (ARRAY['TODO', 'IN_PROGRESS', 'COMPLETED', 'CANCELED'])[1 + abs(hashtext(t::text || 's')) % 4],
      (ARRAY['LOW', 'MEDIUM', 'HIGH', 'URGENT'])[rank], rank,
      ${patientId(tenant, 'p')}, ${userId(tenant, 'u')},
      CASE WHEN abs(hashtext(t::text || 'm')) % 3 = 0 THEN 'ttmp-glucose-log' END,
      lower(name || E'\\n' || description), now() - make_interval(secs => abs(hashtext(t::text || 'c')) % 31536000), now(),
      'SYSTEM:seed', 'SYSTEM:seed'
    FROM (
      SELECT t,
        ${firstPatient}::int + abs(hashtext(t::text || 'x')) % ${span}::int AS p,
        abs(hashtext(t::text || 'a')) % ${users}::int AS u,
        1 + abs(hashtext(t::text || 'r')) % 4 AS rank,
        (${sql.val(names)}::text[])[1 + t % ${names.length}] AS name,
        'Generated task ' || t AS description
      FROM generate_series(${from}::int, ${to - 1}::int) AS t
    ) generated
  `.execute(db);
}

interface SavedIndex {
  name: string;
  definition: string;
}

/** Drops the indexes of the bulk tables other than primary keys; they are rebuilt after the load. */
async function dropSecondaryIndexes(db: Kysely<DB>): Promise<SavedIndex[]> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`
    SELECT i.indexname, i.indexdef FROM pg_indexes i
    WHERE i.schemaname = current_schema() AND i.tablename = ANY(${sql.val([...bulkTables])}::text[])
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
  `.execute(db);
  for (const row of rows) await sql`DROP INDEX ${sql.ref(row.indexname)}`.execute(db);
  return rows.map((row) => ({ name: row.indexname, definition: row.indexdef }));
}

async function rebuildIndexes(db: Kysely<DB>, indexes: SavedIndex[]) {
  const bar = new SingleBar({
    format: 'indexes   [{bar}] {value}/{total} | {duration}s',
    barsize: 30,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 5000,
  });
  bar.start(indexes.length, 0);
  // One connection, so the larger sort memory applies to every build.
  await db.connection().execute(async (connection) => {
    await sql`SET maintenance_work_mem = '256MB'`.execute(connection);
    for (const [index, saved] of indexes.entries()) {
      await sql.raw(saved.definition).execute(connection);
      bar.update(index + 1);
    }
  });
  bar.stop();
}
