import fs from 'node:fs';
import os from 'node:os';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { systemContext } from '../http/context.ts';
import type { Services } from '../http/services.ts';
import { applyFormation } from '../modules/formation/index.ts';
import { createInstance, createTenant } from '../tenancy/store.ts';
import { findInstanceByName, findTenantByName, type Instance, type Tenant } from '../tenancy/tenancy.ts';
import { demoFormationPath } from './bootstrap.ts';
import { dropSecondaryIndexes, rebuildIndexes } from './indexes.ts';
import { progressBar } from './progress.ts';
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
  /** Calendar events over two years around now, hosted by coordinators with a patient each; one in five an encounter. */
  events?: number;
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
const bulkTables = [
  'patients',
  'patient_care_team',
  'patient_programs',
  'tasks',
  'calendar_events',
  'calendar_event_participants',
  'cdt_records',
] as const;
/** Batches load on this many connections at once: one per core keeps the database busy. */
const LANES = Math.max(1, Math.min(os.availableParallelism(), 4));

export async function seedBulk(services: Services, options: BulkOptions): Promise<BulkResult> {
  const started = Date.now();
  const { db } = services;
  const tenant = (await findTenantByName(db, options.tenant)) ?? (await createTenant(services, options.tenant));
  let instance = await findInstanceByName(db, tenant.id, options.instance);
  if (!instance) {
    const created = await createInstance(services, tenant, options.instance);
    await applyFormation(systemContext(services, tenant, created), JSON.parse(fs.readFileSync(demoFormationPath, 'utf8')));
    instance = (await findInstanceByName(db, tenant.id, options.instance))!;
  }
  const userCount = options.users ?? Math.max(10, Math.ceil(options.patients / 500));
  const rows: Record<string, number> = {};

  const events = options.events ?? 0;
  const rebuild = !options.keepIndexes && options.patients + options.tasks + events >= INDEX_REBUILD_THRESHOLD;
  const dropped = rebuild ? await dropSecondaryIndexes(db, bulkTables) : [];
  try {
    const offset = await existingPatientCount(db, tenant.id, instance.id);
    rows.users = await seedUsers(db, tenant, instance, userCount);
    rows.patients = await inBatches(db, 'patients', options.patients, options.batchSize, (lane, from, to) =>
      insertPatients(lane, tenant, instance, offset + from, offset + to, userCount),
    );
    rows.tasks = await inBatches(db, 'tasks', options.tasks, options.batchSize, (lane, from, to) =>
      insertTasks(lane, tenant, instance, offset, offset + options.patients, from, to, userCount),
    );
    rows.events = await inBatches(db, 'events', events, options.batchSize, (lane, from, to) =>
      insertEvents(lane, tenant, instance, offset, offset + options.patients, from, to, userCount),
    );
  } finally {
    if (dropped.length > 0) await rebuildIndexes(db, dropped, LANES);
  }
  // VACUUM sets the visibility map, as autovacuum would on a live database, so index-only scans
  // (care teams, counts) need not visit the table; ANALYZE gives the planner the new row counts.
  await sql`VACUUM ANALYZE patients, patient_care_team, patient_programs, tasks, users, access_grants, user_territories, user_regions,
    calendar_events, calendar_event_participants, cdt_records`.execute(db);
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

/**
 * Runs `load` over [0, total) in batches, on LANES connections at once, with a progress bar and
 * a rows-per-second readout. Each lane skips foreign-key triggers when the loader may (a
 * superuser): the generated rows are consistent by construction, as pg_restore assumes too.
 */
async function inBatches(
  db: Kysely<DB>,
  label: string,
  total: number,
  batchSize: number,
  load: (lane: Kysely<DB>, from: number, to: number) => Promise<void>,
): Promise<number> {
  if (total <= 0) return 0;
  const bar = progressBar(`${label.padEnd(9)} [{bar}] {percentage}% | {value}/{total} | {rate} rows/s | {duration}s`);
  const started = Date.now();
  let next = 0;
  let loaded = 0;
  bar.start(total, 0, { rate: 0 });
  const lane = () =>
    db.connection().execute(async (connection) => {
      await sql`SET session_replication_role = replica`.execute(connection).catch(() => {});
      try {
        while (next < total) {
          const from = next;
          const to = Math.min(total, from + batchSize);
          next = to;
          await load(connection, from, to);
          loaded += to - from;
          bar.update(loaded, { rate: Math.round(loaded / Math.max((Date.now() - started) / 1000, 0.001)) });
        }
      } finally {
        await sql`SET session_replication_role = DEFAULT`.execute(connection).catch(() => {});
      }
    });
  try {
    await Promise.all(Array.from({ length: LANES }, lane));
  } finally {
    // A running bar's timer would keep the process alive after a failure.
    bar.stop();
  }
  return total;
}

/**
 * A time-ordered (version 7 layout) uuid from a row's sequence number and its md5, so rows keep
 * the index locality that the API's own uuidv7 ids have, and a row's id can be derived again.
 */
function seededUuid(sequence: string, md5: string, baseMs: number) {
  return sql<string>`(lpad(to_hex(${sql.lit(baseMs)}::bigint + ${sql.raw(sequence)}), 12, '0') || '7' ||
    substr(${sql.raw(md5)}, 1, 3) || '8' || substr(${sql.raw(md5)}, 4, 15))::uuid`;
}

/** Ids are derived from the tenant, so several bulk tenants in one database never collide. */
function baseMs(tenant: Tenant, kind: number): number {
  const seed = Number.parseInt(tenant.id.replaceAll('-', '').slice(20, 28), 16);
  return 1_600_000_000_000 + (seed % 100_000) * 10_000_000_000 + kind * 2_000_000_000;
}

// Tenant ids are uuids, so quoting them into SQL text is safe.
const userId = (tenant: Tenant, sequence: string) =>
  seededUuid(sequence, `md5('${tenant.id}u' || ${sequence})`, baseMs(tenant, 1));
const patientId = (tenant: Tenant, sequence: string) =>
  seededUuid(sequence, `md5('${tenant.id}p' || ${sequence})`, baseMs(tenant, 2));

/** Each territory of the demo formation, and its region. */
const territoryNames = [...new Set(places.map((place) => place.territory))];
const territoryRegions = territoryNames.map((territory) => places.find((place) => place.territory === territory)!.region);
/**
 * Two supervisors per territory cover it (the patients' territorial team); coordinators reach
 * their patients through care teams. A territorial team so stays the same size as data grows.
 */
const supervisors = territoryNames.length * 2;

async function seedUsers(db: Kysely<DB>, tenant: Tenant, instance: Instance, count: number): Promise<number> {
  // Made by an earlier bulk load of the tenant: their territories would otherwise be doubled. Asked
  // of the coordinators themselves, not of the patients: a tenant with patients of its own (the
  // demo's) still needs them, or its care teams would name users that do not exist.
  const { rows: made } =
    await sql`SELECT 1 FROM users WHERE tenant_id = ${tenant.id}::uuid AND id = (SELECT ${userId(tenant, 'u')} FROM (SELECT 0 AS u) AS first)`.execute(
      db,
    );
  if (made.length > 0) return 0;
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
      CASE WHEN u < ${supervisors}::int THEN jsonb_build_array(jsonb_build_object(
        'name', (${sql.val(territoryRegions)}::text[])[1 + u % ${territoryNames.length}],
        'territories', jsonb_build_array((${sql.val(territoryNames)}::text[])[1 + u % ${territoryNames.length}]),
        'instanceName', ${instance.name}::text, 'createdAt', now(), 'updatedAt', now(), 'createdBy', null, 'updatedBy', null))
      ELSE '[]'::jsonb END
    FROM generate_series(0, ${count - 1}::int) AS u
    ON CONFLICT DO NOTHING
  `.execute(db);
  await sql`
    INSERT INTO user_regions (tenant_id, instance_name, region, user_id)
    SELECT DISTINCT ut.tenant_id, entry->>'instanceName', entry->>'name', ut.user_id
    FROM user_territories ut, jsonb_array_elements(ut.territories) AS entry
    WHERE ut.tenant_id = ${tenant.id}::uuid
    ON CONFLICT DO NOTHING
  `.execute(db);
  return count;
}

/**
 * One batch of patients with their care teams (one or two coordinators of the patient's region,
 * the first the point of contact) and, for three in ten, a diabetes-programme enrolment: one
 * statement, so each patient row is made once. Two hashes per row feed every varied column.
 */
async function insertPatients(db: Kysely<DB>, tenant: Tenant, instance: Instance, from: number, to: number, users: number) {
  const column = (values: string[]) => sql`(${sql.val(values)}::text[])`;
  const regionBits = places.map((place) => (place.region === 'west' ? 0 : 1));
  const nf = firstNames.length;
  await sql`
    WITH generated AS (
      SELECT i, md5(${`${tenant.id}p`}::text || i) AS digest,
        abs(hashtext(i::text)::bigint) AS h1, abs(hashtext((i::bigint * 7919)::text)::bigint) AS h2, 1 + i % ${places.length}::int AS place
      FROM generate_series(${from}::int, ${to - 1}::int) AS i
    ), named AS (
      SELECT i, h1, h2, place, digest, ${seededUuid('i', 'digest', baseMs(tenant, 2))} AS id,
        ${column(firstNames)}[1 + h1 % ${nf}::int] AS f,
        CASE WHEN (h1 / ${nf}::int) % 3 = 0 THEN ${column(firstNames)}[1 + h2 % ${nf}::int] END AS m,
        ${column(lastNames)}[1 + (h2 / ${nf}::int) % ${lastNames.length}::int] AS l,
        '+1' || ${column(places.map((p) => p.areaCode))}[place] || (200 + (h1 / 7) % 800)::text ||
          lpad(((h2 / 11) % 10000)::text, 4, '0') AS phone,
        'MRN' || lpad(i::text, 9, '0') AS mrn
      FROM generated
    ), inserted AS (
      INSERT INTO patients (
        tenant_id, instance_id, id, external_guid, external_id, mrn, first_name, middle_name, last_name, birth_date,
        gender, marital_status, primary_language, email, phone, city, state, zip, country, timezone,
        patient_region, patient_territory, regions, territories, search_text, created_at, updated_at,
        created_by_name, updated_by_name)
      SELECT ${tenant.id}::uuid, ${instance.id}::uuid, id, md5(digest)::uuid, 'EXT-' || i, mrn, f, m, l,
        date '1930-01-01' + ((h1 / 13) % 27000)::int,
        (ARRAY['FEMALE', 'MALE', 'OTHER', 'UNKNOWN'])[1 + (h2 / 17) % 4], (ARRAY['M', 'S', 'D', 'W', 'UKN'])[1 + (h2 / 19) % 5],
        'ENGLISH', lower(f || '.' || l || i || '@mail.example'), phone,
        ${column(places.map((p) => p.city))}[place], ${column(places.map((p) => p.state))}[place],
        ${column(places.map((p) => p.zip))}[place], 'US', ${column(places.map((p) => p.timezone))}[place],
        ${column(places.map((p) => p.region))}[place], ${column(places.map((p) => p.territory))}[place],
        ARRAY[${column(places.map((p) => p.region))}[place]], ARRAY[${column(places.map((p) => p.territory))}[place]],
        -- The same text searchText() makes: full name, short name, phone, email, MRN.
        lower(concat_ws(E'\n', concat_ws(' ', f, m, l), CASE WHEN m IS NOT NULL THEN f || ' ' || l END, phone,
          f || '.' || l || i || '@mail.example', mrn)),
        now() - make_interval(secs => h1 % 94608000), now() - make_interval(secs => h2 % 2592000), 'SYSTEM:seed', 'SYSTEM:seed'
      FROM named
      RETURNING id, (substr(external_id, 5))::int AS i
    ), care_team AS (
      -- Coordinators serve one region each (even: west, odd: east), like the patients' places.
      INSERT INTO patient_care_team (tenant_id, patient_id, user_id, point_of_contact, position)
      SELECT ${tenant.id}::uuid, inserted.id, ${userId(tenant, 'u')}, member = 0, member
      FROM inserted,
        LATERAL (SELECT member,
          (2 * ((abs(hashtext(inserted.i::text || 'c')::bigint) + member * 7) % greatest(${users}::int / 2, 1)) +
            (${sql.val(regionBits)}::int[])[1 + inserted.i % ${places.length}::int]) % ${users}::int AS u
          FROM generate_series(0, CASE WHEN inserted.i % 4 = 0 THEN 1 ELSE 0 END) AS member) team
      ON CONFLICT DO NOTHING
    )
    INSERT INTO patient_programs (tenant_id, id, instance_id, patient_id, program_name, status, current_phase, path_history,
      created_by_name, updated_by_name)
    SELECT ${tenant.id}::uuid, gen_random_uuid(), ${instance.id}::uuid, inserted.id, 'diabetes-management', 'IN_PROGRESS',
      phase, jsonb_build_array(phase), 'SYSTEM:seed', 'SYSTEM:seed'
    FROM inserted,
      LATERAL (SELECT jsonb_build_object('timestamp', now(), 'createdBy', null, 'createdByName', 'SYSTEM:seed',
        'name', 'active-coaching', 'title', 'Active coaching', 'description', 'Weekly calls', 'currentVersion', '1',
        'deleted', false) AS phase) p
    WHERE inserted.i % 10 < 3
  `.execute(db);
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
    SELECT ${tenant.id}::uuid, ${instance.id}::uuid, ${seededUuid('t', 'digest', baseMs(tenant, 3))}, name, description,
      now() + make_interval(days => (h % 120 - 30)::int),
      (ARRAY['TODO', 'IN_PROGRESS', 'COMPLETED', 'CANCELED'])[1 + (h / 7) % 4],
      (ARRAY['LOW', 'MEDIUM', 'HIGH', 'URGENT'])[rank], rank,
      ${patientId(tenant, 'p')}, ${userId(tenant, 'u')},
      CASE WHEN (h / 11) % 3 = 0 THEN 'ttmp-glucose-log' END,
      lower(name || E'\n' || description), now() - make_interval(secs => h % 31536000), now(), 'SYSTEM:seed', 'SYSTEM:seed'
    FROM (
      SELECT t, h, md5(${`${tenant.id}t`}::text || t) AS digest,
        ${firstPatient}::int + (h / 13) % ${span}::int AS p,
        (h / 17) % ${users}::int AS u,
        1 + (h / 19) % 4 AS rank,
        (${sql.val(names)}::text[])[1 + t % ${names.length}::int] AS name,
        'Generated task ' || t AS description
      FROM (SELECT t, abs(hashtext(t::text || 't')::bigint) AS h FROM generate_series(${from}::int, ${to - 1}::int) AS t) hashed
    ) generated
  `.execute(db);
}

/**
 * One batch of calendar events: appointments of 30 minutes over two years around now, each hosted
 * by a coordinator with one patient; one in fifty a three-day leave (no patient); one in five an
 * encounter (an `__encounter__` record of the patient, built on the event). Hosts and patients are
 * spread evenly, so a coordinator's week holds the same few events at any scale.
 */
async function insertEvents(
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
  const encounterId = seededUuid('e', `md5(${`'${tenant.id}n'`} || e)`, baseMs(tenant, 5));
  await sql`
    WITH generated AS (
      SELECT e, h, md5(${`${tenant.id}e`}::text || e) AS digest,
        ${firstPatient}::int + (h / 13) % ${span}::int AS p,
        (h / 17) % ${users}::int AS u,
        date_trunc('hour', now()) - interval '365 days' + make_interval(hours => ((h / 7) % 17520)::int) AS start_at,
        e % 50 = 0 AS leave,
        e % 50 <> 0 AND e % 5 = 1 AS encounter
      FROM (SELECT e, abs(hashtext(e::text || 'e')::bigint) AS h FROM generate_series(${from}::int, ${to - 1}::int) AS e) hashed
    ), rows AS (
      SELECT generated.*, ${seededUuid('e', 'digest', baseMs(tenant, 4))} AS id, ${patientId(tenant, 'p')} AS patient_id,
        ${userId(tenant, 'u')} AS host_id,
        start_at + CASE WHEN leave THEN interval '3 days' ELSE interval '30 minutes' END AS end_at,
        CASE WHEN encounter THEN ${encounterId} END AS encounter_id
      FROM generated
    ), events AS (
      INSERT INTO calendar_events (tenant_id, instance_id, id, host_id, start_at, end_at, duration, title, event_type,
        event_status, event_mode, event_color, timezone, encounter_id, created_at, updated_at, created_by_name, updated_by_name)
      SELECT ${tenant.id}::uuid, ${instance.id}::uuid, id, host_id, start_at, end_at,
        extract(epoch FROM end_at - start_at)::int,
        CASE WHEN leave THEN 'Leave' WHEN encounter THEN 'Check-in' ELSE 'Care plan review' END,
        CASE WHEN leave THEN 'LEAVE' WHEN encounter THEN 'ENCOUNTER' ELSE 'APPOINTMENT' END,
        CASE WHEN start_at < now() AND e % 7 = 0 THEN 'CANCELLED' ELSE 'SCHEDULED' END,
        CASE WHEN leave THEN NULL ELSE (ARRAY['IN-PERSON', 'CALL', 'VIDEO'])[1 + (h / 23) % 3] END,
        CASE WHEN leave THEN 'grey' ELSE 'green' END, 'US/Pacific', encounter_id,
        start_at - interval '7 days', start_at - interval '7 days', 'SYSTEM:seed', 'SYSTEM:seed'
      FROM rows
    ), participants AS (
      INSERT INTO calendar_event_participants (tenant_id, instance_id, id, event_id, position, participant_id,
        participant_role, participation_status, start_at, end_at)
      SELECT ${tenant.id}::uuid, ${instance.id}::uuid, md5(digest || 'participant')::uuid, id, 0, patient_id, 'patient', '',
        start_at, end_at
      FROM rows WHERE NOT leave
    )
    INSERT INTO cdt_records (tenant_id, instance_id, id, patient_id, cdt_name, values, external_guid, created_at, updated_at,
      created_by_name, updated_by_name)
    SELECT ${tenant.id}::uuid, ${instance.id}::uuid, encounter_id, patient_id, '__encounter__',
      jsonb_build_object('title', 'Check-in', 'type', 'check-in', 'templateName', 'check-in', 'templateTitle', 'Check-in',
        'status', CASE WHEN start_at < now() THEN 'FINALIZED' ELSE 'DRAFT' END, 'calendarEventId', id,
        'ownerUserId', host_id, 'responsibleParty', 'SELF_PAY', 'serviceCost', 8000, 'preVisitCost', 0,
        'visitServices', jsonb_build_array(jsonb_build_object('name', 'follow-up', 'quantity', 1, 'serviceCost', 8000,
          'cancellationFee', 1500, 'preVisitCost', 0, 'modifiers', '[]'::jsonb))),
      md5(digest || 'guid')::uuid, start_at - interval '7 days', start_at - interval '7 days', 'SYSTEM:seed', 'SYSTEM:seed'
    FROM rows WHERE encounter
  `.execute(db);
}
