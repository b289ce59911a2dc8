/**
 * `npm run bench:access-log [-- --quick]` (and the end of `npm run bench`): what the access log
 * costs and whether its two questions stay fast at scale, in one run.
 *
 * 1. Its cost on reads: two Cairn servers from the same build on the same data (`cairn serve
 *    --workers 2`, job workers off, as run.ts measures), one with the access log on and one with
 *    CAIRN_ACCESS_LOG=false, take turns under the same load: get a patient by id, search, a
 *    coordinator's list page (20) and an export page (PATIENT, 500). On ÷ off, target ≥ 0.9.
 * 2. Its size: after a known number of logged reads (by id: 1 patient a record; a list page: 20;
 *    an export page: 500), the growth of access_log (table, TOAST and indexes) per 1,000 records.
 * 3. Its two questions at scale: 10,000,000 records (1,000,000 with --quick) over two years, by
 *    200 users, one in ten naming 20 patients, inserted straight into the real tables (their
 *    real indexes serve) and vacuumed as autovacuum would; then over HTTP, 200 requests each,
 *    "everything user U saw last month" (`/admin/access-log?actorId&from&to`) and "everyone who
 *    saw patient P" (`/patients/{id}/access-log`), target p95 < 100 ms. Each question's
 *    statements are shown with the plan PostgreSQL ran them with (auto_explain, the server's
 *    session settings), for its request at the p95.
 *
 * Standalone it makes its own PostgreSQL (tuned as run.ts's) and a tenant of 1,000,000 patients
 * (100,000 with --quick) with `cairn seed bulk`; from run.ts it uses the run's database and large
 * tenant, measuring sizes as growth, so the records already there do not count.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from '../src/db/schema.ts';
import type { TenantContext } from '../src/http/context.ts';
import { type AccessQuery, accessPage } from '../src/modules/access-log/store.ts';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import {
  benchClient,
  cli,
  load,
  log,
  median,
  percentile,
  query,
  quick,
  root,
  standalone,
  synchronousCommit,
  token,
  tunedPostgres,
  waitFor,
} from './common.ts';
import { CPU_PARTS, type CpuByPart, type CpuPart, cpuBetween, cpuSnapshot, postmasterOf } from './cpu.ts';
import type { LoadPlan, LoadResult } from './load.ts';

const PATIENTS = quick ? 100_000 : 1_000_000;
/** Access records inserted for the two questions. */
const RECORDS = quick ? 1_000_000 : 10_000_000;
const seconds = quick ? 3 : 10;
const ROUNDS = quick ? 2 : 3;
const CONNECTIONS = 10;
const RATIO_TARGET = 0.9;
const P95_TARGET_MS = 100;
/** Logged reads per kind for the size: enough pages that a page's rounding is lost. */
const SIZE_READS = { byId: quick ? 5_000 : 20_000, list: quick ? 2_000 : 5_000, export: quick ? 200 : 500 };
/** The inserted log's shape: two years, 200 users, one record in ten a page of 20 patients. */
const SPAN_DAYS = 730;
const ACTORS = 200;
const WIDE_EVERY = 10;
const WIDE_PATIENTS = 20;
/** Timed requests per question, after a few untimed ones. */
const QUESTION_REQUESTS = 200;
const QUESTION_WARMUP = 20;
/** Records per inserted batch, and batches in flight (one per core of the bench machine). */
const BATCH = 50_000;
const LANES = 2;
const EXPORT_PAGE = 500;
/** About 0.4 s a page (bench/export.ts): two connections per worker keep both busy, and a longer run counts dozens. */
const EXPORT_CONNECTIONS = 4;
const EXPORT_SECONDS = seconds * 3;
const instanceName = 'sandbox';
const children: ChildProcess[] = [];

/** The run's database and large tenant (run.ts), instead of this bench's own. */
export interface SharedTenant {
  databaseUrl: string;
  tenant: string;
  clientKey: string;
  clientSecret: string;
}

type Side = 'on' | 'off';

interface Servers {
  bases: Record<Side, string>;
  tokens: Record<Side, string>;
  processes: Record<Side, ChildProcess>;
}

/** The same build twice on the same database: the access log on, and off. */
async function startServers(url: string, tenant: SharedTenant): Promise<Servers> {
  const env = { ...process.env, DATABASE_URL: url, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
  const bases = {} as Record<Side, string>;
  const processes = {} as Record<Side, ChildProcess>;
  for (const side of ['on', 'off'] as const) {
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--workers', '2'], {
      cwd: root,
      env: {
        ...env,
        PORT: String(port),
        CAIRN_TOKEN_LIMIT: '100000000',
        // An API-only node, as run.ts measures: no sealing job, no polling beside the requests.
        CAIRN_JOB_WORKERS: '0',
        CAIRN_ACCESS_LOG: side === 'on' ? 'true' : 'false',
      },
      // The off server warns at start that reads are not recorded: that is the point here.
      stdio: ['ignore', 'ignore', side === 'on' ? 'inherit' : 'ignore'],
    });
    children.push(child);
    processes[side] = child;
    bases[side] = `http://127.0.0.1:${port}`;
  }
  for (const base of Object.values(bases)) await waitFor(`${base}/health/ready`);
  const tokens = {
    on: await token(bases.on, tenant.clientKey, tenant.clientSecret),
    off: await token(bases.off, tenant.clientKey, tenant.clientSecret),
  };
  return { bases, tokens, processes };
}

interface Samples {
  tenantId: string;
  instanceId: string;
  patientIds: string[];
  searchTerms: string[];
  coordinators: string[];
  /** `start` cursors of the PATIENT export's first pages (null: the first). */
  exportStarts: (string | null)[];
}

/** Real ids, names and coordinators (as run.ts samples them), and export cursors walked on the server without the log. */
async function sampleData(url: string, tenant: string, servers: Servers): Promise<Samples> {
  const [{ id: tenantId }] = (await query<{ id: string }>(url, 'SELECT id FROM tenants WHERE name = $1', [tenant])) as [
    { id: string },
  ];
  const [{ id: instanceId }] = (await query<{ id: string }>(url, 'SELECT id FROM instances WHERE tenant_id = $1 AND name = $2', [
    tenantId,
    instanceName,
  ])) as [{ id: string }];
  const patients = await query<{ id: string; first_name: string; last_name: string; phone: string | null }>(
    url,
    'SELECT id, first_name, last_name, phone FROM patients TABLESAMPLE SYSTEM (5) WHERE tenant_id = $1 LIMIT 4000',
    [tenantId],
  );
  const searchTerms = patients.slice(0, 400).map((row, index) => {
    switch (index % 4) {
      case 0:
        return row.last_name;
      case 1:
        return row.last_name.slice(0, 5);
      case 2:
        return `${row.first_name} ${row.last_name}`;
      default:
        return row.phone?.slice(-7) ?? row.last_name;
    }
  });
  const coordinators = (await query<{ id: string }>(url, 'SELECT id FROM users WHERE tenant_id = $1 LIMIT 200', [tenantId])).map(
    (row) => row.id,
  );
  const exportStarts: (string | null)[] = [null];
  const headers = { authorization: `Bearer ${servers.tokens.off}` };
  for (let page = 0; page < 20; page++) {
    const start = exportStarts.at(-1);
    const response = await fetch(
      `${servers.bases.off}/${tenant}/${instanceName}/export/PATIENT?pageSize=${EXPORT_PAGE}${start ? `&start=${encodeURIComponent(start)}` : ''}`,
      { headers },
    );
    if (!response.ok) throw new Error(`export: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { cursor: { end: string; hasNext: boolean } };
    if (!body.cursor.hasNext) break;
    exportStarts.push(body.cursor.end);
  }
  return { tenantId, instanceId, patientIds: patients.map((row) => row.id), searchTerms, coordinators, exportStarts };
}

interface Scenario {
  name: string;
  /** Paths under /{tenant}/{instance}. */
  paths: string[];
  /** Fewer and longer runs for slow pages, so a run counts enough of them. */
  connections?: number;
  seconds?: number;
}

function scenarios(samples: Samples): Scenario[] {
  const encode = encodeURIComponent;
  return [
    { name: 'get patient by id', paths: samples.patientIds.map((id) => `/patients/${id}`) },
    { name: 'patient search', paths: samples.searchTerms.map((term) => `/patients?search=${encode(term)}`) },
    {
      name: 'patient list page (20)',
      paths: samples.coordinators.map((id) => `/patients?careTeamMemberId=${id}&sort=lastName,asc&size=20`),
    },
    {
      name: `export page (PATIENT, ${EXPORT_PAGE})`,
      paths: samples.exportStarts.map(
        (start) => `/export/PATIENT?pageSize=${EXPORT_PAGE}${start === null ? '' : `&start=${encode(start)}`}`,
      ),
      connections: EXPORT_CONNECTIONS,
      seconds: EXPORT_SECONDS,
    },
  ];
}

// ---- 1. Throughput, on against off ----

interface Run {
  result: LoadResult;
  /** From pg_stat_statements, when the database has it: statements per request, and the log's INSERTs. */
  statementsPerRequest: number | null;
  /**
   * The log's INSERT statements per request (below 1 where answers' records share one: group
   * commit), and their execute and plan times per request (planning where pg_stat_statements
   * tracks it, as this bench's own database does).
   */
  logWrites: number | null;
  logWriteMs: number | null;
  logPlanMs: number | null;
  /** WAL bytes written per request, full-page images included. */
  walPerRequest: number | null;
  /** CPU microseconds per request by who spent them (bench/cpu.ts). */
  cpu: CpuByPart;
}

interface Paired {
  name: string;
  runs: Record<Side, Run[]>;
}

/**
 * A load run, with the statements the database ran meanwhile (pg_stat_statements reset first, read
 * after) and the CPU each process spent: the server's, PostgreSQL's when it runs here, the machine's.
 */
async function measured(url: string, plan: LoadPlan, server: ChildProcess, postmaster: number | null): Promise<Run> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  // The WAL written meanwhile (PostgreSQL 14 and later), by every session: the servers' requests are all there is.
  const wal = () =>
    db.query<{ bytes: number }>('SELECT wal_bytes::float8 AS bytes FROM pg_stat_wal').then(
      ({ rows }) => rows[0]!.bytes,
      () => null,
    );
  try {
    const available = await db.query('SELECT pg_stat_statements_reset()').then(
      () => true,
      () => false,
    );
    const walBefore = await wal();
    const cpuBefore = cpuSnapshot(server, postmaster);
    const result = await load(plan);
    const cpuAfter = cpuSnapshot(server, postmaster);
    const walAfter = await wal();
    const walPerRequest = walBefore === null || walAfter === null ? null : (walAfter - walBefore) / Math.max(1, result.sent);
    const spent = cpuBetween(cpuBefore, cpuAfter, postmaster !== null);
    const cpu = Object.fromEntries(
      CPU_PARTS.map((part) => [part, spent[part] === null ? null : (spent[part] * 1e6) / Math.max(1, result.sent)]),
    ) as CpuByPart;
    if (!available)
      return { result, statementsPerRequest: null, logWrites: null, logWriteMs: null, logPlanMs: null, walPerRequest, cpu };
    // Everything but this client's own reset and read; the log's write is the statement inserting into access_log.
    const { rows } = await db.query<{ calls: number; logCalls: number; logMs: number; logPlanMs: number; planned: boolean }>(
      `SELECT coalesce(sum(calls), 0)::float8 AS calls,
              coalesce(sum(calls) FILTER (WHERE query ILIKE '%insert into "access_log"%'), 0)::float8 AS "logCalls",
              coalesce(sum(total_exec_time) FILTER (WHERE query ILIKE '%insert into "access_log"%'), 0)::float8 AS "logMs",
              coalesce(sum(total_plan_time) FILTER (WHERE query ILIKE '%insert into "access_log"%'), 0)::float8 AS "logPlanMs",
              current_setting('pg_stat_statements.track_planning') = 'on' AS planned
         FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%'`,
    );
    const row = rows[0]!;
    return {
      result,
      statementsPerRequest: row.calls / Math.max(1, result.sent),
      logWrites: row.logCalls / Math.max(1, result.sent),
      logWriteMs: row.logCalls > 0 ? row.logMs / Math.max(1, result.sent) : null,
      logPlanMs: row.logCalls > 0 && row.planned ? row.logPlanMs / Math.max(1, result.sent) : null,
      walPerRequest,
      cpu,
    };
  } finally {
    await db.end();
  }
}

async function throughput(url: string, servers: Servers, tenant: string, list: Scenario[]): Promise<Paired[]> {
  const plan = (side: Side, scenario: Scenario, runSeconds = scenario.seconds ?? seconds): LoadPlan => ({
    url: servers.bases[side],
    method: 'GET',
    headers: { authorization: `Bearer ${servers.tokens[side]}` },
    paths: scenario.paths.map((p) => `/${tenant}/${instanceName}${p}`),
    connections: scenario.connections ?? CONNECTIONS,
    seconds: runSeconds,
  });
  const paired: Paired[] = [];
  const postmaster = await postmasterOf(url);
  for (const scenario of list) {
    // A short warm-up of each fills caches and lets the JIT settle.
    for (const side of ['on', 'off'] as const) await load(plan(side, scenario, quick ? 1 : 2));
    const runs: Record<Side, Run[]> = { on: [], off: [] };
    // Turns, round by round, the first alternating: a passing disturbance falls on both.
    for (let round = 0; round < ROUNDS; round++) {
      const order: Side[] = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const side of order) runs[side].push(await measured(url, plan(side, scenario), servers.processes[side], postmaster));
    }
    paired.push({ name: scenario.name, runs });
    const ratio = median(runs.on.map((on, i) => on.result.rps / runs.off[i]!.result.rps));
    log(
      `${scenario.name.padEnd(28)} on ${median(runs.on.map((r) => r.result.rps)).toFixed(0)} req/s, off ${median(runs.off.map((r) => r.result.rps)).toFixed(0)} req/s: ${ratio.toFixed(2)}`,
    );
  }
  return paired;
}

// ---- 2. Size per 1,000 records ----

const LOG_TABLES = ['access_log'] as const;

interface Sizes {
  /** Bytes by relation: each table (pg_table_size: heap, TOAST and their maps) and each of its indexes, in that order. */
  bytes: Map<string, number>;
  records: number;
  patientRows: number;
}

async function sizes(url: string): Promise<Sizes> {
  const relations = await query<{ name: string; bytes: number }>(
    url,
    `SELECT t.name AS "table", t.name, 0 AS kind, pg_table_size(t.name::regclass)::float8 AS bytes
       FROM unnest($1::text[]) AS t(name)
     UNION ALL
     SELECT t.relname, c.relname, 1, pg_relation_size(c.oid)::float8
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.relname = ANY ($1::text[])
     ORDER BY 1, 3, 2`,
    [LOG_TABLES],
  );
  const [counts] = await query<{ records: number; patientRows: number }>(
    url,
    `SELECT count(*)::float8 AS records, coalesce(sum(cardinality(patient_ids)), 0)::float8 AS "patientRows" FROM access_log`,
  );
  return { bytes: new Map(relations.map((row) => [row.name, row.bytes])), ...counts! };
}

/** `count` requests, 8 at a time, cycling through `paths`; the number that were not 2xx. */
async function drive(base: string, authorization: string, paths: string[], count: number): Promise<number> {
  let next = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const path = paths[next++ % paths.length]!;
        const response = await fetch(`${base}${path}`, { headers: { authorization } });
        await response.arrayBuffer();
        if (!response.ok) failed++;
      }
    }),
  );
  return failed;
}

interface Growth {
  name: string;
  reads: number;
  failed: number;
  records: number;
  patientRows: number;
  /** Growth in bytes by relation. */
  bytes: Map<string, number>;
}

async function sizePerRecord(url: string, servers: Servers, tenant: string, list: Scenario[]): Promise<Growth[]> {
  const kinds: [string, Scenario, number][] = [
    ['read by id (1 patient)', list[0]!, SIZE_READS.byId],
    ['list page (20 patients)', list[2]!, SIZE_READS.list],
    [`export page (${EXPORT_PAGE} patients)`, list[3]!, SIZE_READS.export],
  ];
  const growth: Growth[] = [];
  for (const [name, scenario, reads] of kinds) {
    const before = await sizes(url);
    const failed = await drive(
      servers.bases.on,
      `Bearer ${servers.tokens.on}`,
      scenario.paths.map((p) => `/${tenant}/${instanceName}${p}`),
      reads,
    );
    const after = await sizes(url);
    growth.push({
      name,
      reads,
      failed,
      records: after.records - before.records,
      patientRows: after.patientRows - before.patientRows,
      bytes: new Map([...after.bytes].map(([relation, bytes]) => [relation, bytes - (before.bytes.get(relation) ?? 0)])),
    });
    log(`size: ${name}: ${growth.at(-1)!.records} records, ${growth.at(-1)!.patientRows} patients named`);
  }
  return growth;
}

// ---- 3. The two questions at scale ----

/**
 * RECORDS access records straight into the real tables, in time order over SPAN_DAYS up to a
 * minute ago, as the log grows: ids are UUIDv7 of their time (as writeAccess makes them), users
 * picked evenly among ACTORS, one record in WIDE_EVERY a page of WIDE_PATIENTS patients (any 20 of
 * the tenant's), the rest one patient each (the GIN index on patient_ids takes them in).
 */
async function loadRecords(url: string, samples: Samples): Promise<{ seconds: number; vacuumSeconds: number }> {
  const began = Date.now();
  await query(url, 'DROP TABLE IF EXISTS bench_access_patients, bench_access_actors');
  await query(
    url,
    `CREATE UNLOGGED TABLE bench_access_patients AS
       SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id FROM patients WHERE tenant_id = $1 AND instance_id = $2`,
    [samples.tenantId, samples.instanceId],
  );
  await query(url, 'ALTER TABLE bench_access_patients ADD PRIMARY KEY (n)');
  await query(
    url,
    `CREATE UNLOGGED TABLE bench_access_actors AS
       SELECT (row_number() OVER (ORDER BY username) - 1)::int AS n, id, concat_ws(' ', first_name, last_name) AS name
         FROM (SELECT * FROM users WHERE tenant_id = $1 ORDER BY username LIMIT ${ACTORS}) u`,
    [samples.tenantId],
  );
  await query(url, 'ALTER TABLE bench_access_actors ADD PRIMARY KEY (n)');
  await query(url, 'ANALYZE bench_access_patients, bench_access_actors');
  const [{ patients }] = (await query<{ patients: number }>(
    url,
    'SELECT count(*)::int AS patients FROM bench_access_patients',
  )) as [{ patients: number }];
  const [{ actors }] = (await query<{ actors: number }>(url, 'SELECT count(*)::int AS actors FROM bench_access_actors')) as [
    { actors: number },
  ];
  const spanMs = SPAN_DAYS * 86_400_000;
  const from = new Date(Date.now() - 60_000 - spanMs);
  const step = spanMs / RECORDS;
  const insert = `
    WITH g AS (
      SELECT i,
             $3::timestamptz + (i + 0.5) * $4::float8 * interval '1 millisecond' AS at,
             abs(hashtext(i::text || ':a')) % $5::int AS a,
             abs(hashtext(i::text || ':w')) % ${WIDE_EVERY} = 0 AS wide,
             abs(hashtext(i::text || ':p')) % $6::int AS k,
             md5(i::text || ':id') AS h
        FROM generate_series($1::bigint, $2::bigint - 1) AS i
    ), r AS (
      SELECT g.*,
             (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid AS id
        FROM g
    ), named AS (
      SELECT r.i, r.id, r.at, p.id AS patient_id
        FROM r
        CROSS JOIN LATERAL generate_series(0, CASE WHEN r.wide THEN ${WIDE_PATIENTS - 1} ELSE 0 END) AS j
        JOIN bench_access_patients p ON p.n = (r.k + j) % $6::int
    )
      INSERT INTO access_log (tenant_id, id, occurred_at, instance_id, actor_type, actor_id, actor_name, on_behalf_of,
                              client_address, request_id, operation, resource_type, patient_ids, record_ids, outcome)
      SELECT $7::uuid, r.id, r.at, $8::uuid, 'USER', a.id, a.name, NULL, '10.0.' || r.a || '.' || (r.i % 250),
             gen_random_uuid()::text,
             CASE WHEN r.wide THEN 'GET /:tenantName/:instanceName/patients' ELSE 'GET /:tenantName/:instanceName/patients/:patientId' END,
             'PATIENT', ids.patient_ids, NULL, 200
        FROM r
        JOIN bench_access_actors a ON a.n = r.a
        JOIN (SELECT i, array_agg(patient_id) AS patient_ids FROM named GROUP BY i) ids USING (i)
       ORDER BY r.i`;
  const batches = Math.ceil(RECORDS / BATCH);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        while (next < batches) {
          const batch = next++;
          await client.query(insert, [
            batch * BATCH,
            Math.min(RECORDS, (batch + 1) * BATCH),
            from.toISOString(),
            step,
            actors,
            patients,
            samples.tenantId,
            samples.instanceId,
          ]);
          done++;
          if (done % Math.max(1, Math.floor(batches / 10)) === 0) {
            log(`access log: ${(done * BATCH).toLocaleString('en-US')} records in ${((Date.now() - began) / 1000).toFixed(0)} s`);
          }
        }
      } finally {
        await client.end();
      }
    }),
  );
  const loaded = Date.now();
  // Where autovacuum would have brought an insert-only table: visibility map set, statistics fresh.
  await query(url, 'VACUUM ANALYZE access_log');
  // And the load's dirty pages written out, so no checkpoint falls on the questions.
  await query(url, 'CHECKPOINT').catch(() => {}); // Superusers only: an outside BENCH_DATABASE_URL may refuse it.
  return { seconds: (loaded - began) / 1000, vacuumSeconds: (Date.now() - loaded) / 1000 };
}

interface Timed {
  label: string;
  path: string;
  ms: number;
  total: number;
  /** The answer's length. */
  bytes: number;
  accessQuery: AccessQuery;
}

interface Question {
  name: string;
  request: string;
  timed: Timed[];
  failed: number;
  /** The statements of the request at the p95, with their plans. */
  plans: string[];
  /** Not a question: a plain read timed the same way, for the HTTP round trip's own share. */
  reference?: boolean;
}

/** Each request alone, one after another: the latency a person asking sees. */
async function ask(base: string, authorization: string, requests: Omit<Timed, 'ms' | 'total' | 'bytes'>[]) {
  const timed: Timed[] = [];
  let failed = 0;
  for (const [index, request] of requests.entries()) {
    const began = performance.now();
    const response = await fetch(`${base}${request.path}`, { headers: { authorization } });
    const text = await response.text();
    const ms = performance.now() - began;
    if (!response.ok) failed++;
    const body = JSON.parse(text) as { metaInfo?: { totalElements: number } };
    const bytes = Buffer.byteLength(text);
    if (index >= QUESTION_WARMUP) timed.push({ ...request, ms, total: body.metaInfo?.totalElements ?? 0, bytes });
  }
  return { timed, failed };
}

/**
 * The statements accessPage sends for `q` (captured from Kysely's log, with their parameters), run
 * again in a session set as the server's (jit off, generic plans) with auto_explain reporting each
 * one's plan as it ran. Without the rights to load auto_explain, EXPLAIN ANALYZE (a custom plan).
 */
async function plansOf(url: string, tenantId: string, q: AccessQuery): Promise<string[]> {
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  const options = '-c jit=off -c plan_cache_mode=force_generic_plan';
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2, options }) }),
    log: (event) => {
      if (event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  try {
    await accessPage({ tenant: { id: tenantId }, db } as unknown as TenantContext, q);
  } finally {
    await db.destroy();
  }
  const client = new pg.Client({ connectionString: url, options });
  await client.connect();
  const notices: string[] = [];
  client.on('notice', (notice) => notices.push(notice.message ?? ''));
  try {
    const autoExplain = await client.query(`LOAD 'auto_explain'`).then(
      () => true,
      () => false,
    );
    if (autoExplain) {
      for (const setting of ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_nested_statements = on']) {
        await client.query(`SET auto_explain.${setting}`);
      }
      await client.query('SET client_min_messages = log');
    }
    const plans: string[] = [];
    for (const statement of statements) {
      const values = [...statement.parameters];
      // Once to warm, as the server's 200 requests did; the plan of the second run is kept.
      await client.query(statement.sql, values);
      notices.length = 0;
      if (autoExplain) {
        await client.query(statement.sql, values);
        plans.push(`${statement.sql}\n-- parameters: ${JSON.stringify(values)}\n-- auto_explain:\n${notices.join('\n')}`);
      } else {
        const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, values);
        const plan = rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
        plans.push(`${statement.sql}\n-- parameters: ${JSON.stringify(values)}\n-- EXPLAIN ANALYZE (custom plan):\n${plan}`);
      }
    }
    return plans;
  } finally {
    await client.end();
  }
}

async function questions(url: string, servers: Servers, tenant: string, samples: Samples): Promise<Question[]> {
  const actors = (await query<{ id: string }>(url, 'SELECT id FROM bench_access_actors ORDER BY n')).map((row) => row.id);
  const patients = (
    await query<{ id: string }>(
      url,
      `SELECT id FROM bench_access_patients WHERE n IN (SELECT (abs(hashtext(g::text || ':q')) % (SELECT count(*) FROM bench_access_patients))::int FROM generate_series(1, ${QUESTION_WARMUP + QUESTION_REQUESTS}) g)`,
    )
  ).map((row) => row.id);
  const now = new Date();
  const monthAgo = new Date(now.getTime() - 30 * 86_400_000);
  const authorization = `Bearer ${servers.tokens.on}`;
  const byActor = Array.from({ length: QUESTION_WARMUP + QUESTION_REQUESTS }, (_, i) => {
    const actorId = actors[i % actors.length]!;
    return {
      label: actorId,
      path: `/${tenant}/admin/access-log?actorId=${actorId}&from=${monthAgo.toISOString()}&to=${now.toISOString()}`,
      accessQuery: { page: 0, size: 20, actorId, from: monthAgo.toISOString(), to: now.toISOString() } as AccessQuery,
    };
  });
  const byPatient = Array.from({ length: QUESTION_WARMUP + QUESTION_REQUESTS }, (_, i) => {
    const patientId = patients[i % patients.length]!;
    return {
      label: patientId,
      path: `/${tenant}/${instanceName}/patients/${patientId}/access-log`,
      accessQuery: { page: 0, size: 20, patientId, instanceId: samples.instanceId } as AccessQuery,
    };
  });
  const result: Question[] = [];
  for (const [name, request, requests] of [
    ['everything user U saw last month', 'GET /{t}/admin/access-log?actorId=U&from=(30 days ago)&to=(now)', byActor],
    ['everyone who saw patient P (six years)', 'GET /{t}/{i}/patients/P/access-log', byPatient],
  ] as const) {
    log(`== access log: ${name}`);
    const { timed, failed } = await ask(servers.bases.on, authorization, requests);
    // The request at the p95, its statements explained.
    const atP95 = [...timed].sort((a, b) => a.ms - b.ms)[Math.ceil(0.95 * timed.length) - 1]!;
    const plans = await plansOf(url, samples.tenantId, atP95.accessQuery);
    result.push({ name, request, timed, failed, plans });
    log(
      `${name}: p95 ${percentile(
        timed.map((t) => t.ms),
        95,
      ).toFixed(1)} ms`,
    );
  }
  // The same server's plainest read, timed the same way: what any request costs here.
  const byId = Array.from({ length: QUESTION_WARMUP + QUESTION_REQUESTS }, (_, i) => ({
    label: '',
    path: `/${tenant}/${instanceName}/patients/${samples.patientIds[i % samples.patientIds.length]}`,
    accessQuery: {} as AccessQuery,
  }));
  const reference = await ask(servers.bases.on, authorization, byId);
  result.push({
    name: 'for comparison: get patient by id',
    request: 'GET /{t}/{i}/patients/P',
    ...reference,
    plans: [],
    reference: true,
  });
  return result;
}

// ---- The bench ----

/** This bench's own PostgreSQL, tuned as run.ts's, and its tenant. */
async function ownTenant(): Promise<{ cluster: Cluster; tenant: SharedTenant }> {
  // pg_stat_statements counts each request's statements and times the log's own.
  const cluster = await startCluster({
    ...tunedPostgres(),
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track_planning': 'on',
  });
  const databaseUrl = cluster.url('postgres');
  try {
    const env = { ...process.env, DATABASE_URL: databaseUrl, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
    const tenant = {
      databaseUrl,
      tenant: 'access-log',
      clientKey: 'access-log-bench',
      clientSecret: 'access-log-bench-secret-0123',
    };
    log(`== access log: a tenant of ${PATIENTS.toLocaleString('en-US')} patients`);
    const began = Date.now();
    cli(['migrate'], env);
    await query(databaseUrl, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    cli(['seed', 'bulk', '--tenant', tenant.tenant, '--patients', String(PATIENTS), '--tasks', '0', '--events', '0'], env);
    cli(benchClient(tenant.tenant, tenant.clientKey, tenant.clientSecret), env);
    log(`seeded in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    return { cluster, tenant };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

export async function benchAccessLog(shared?: SharedTenant): Promise<string> {
  log('== access log: on against off, its size, its two questions at scale');
  const started = Date.now();
  // src/ may change while a long run goes on: the commit it started from is named with its figures.
  const build = buildOf();
  const own = shared ? undefined : await ownTenant();
  const tenant = shared ?? own!.tenant;
  const url = tenant.databaseUrl;
  try {
    const servers = await startServers(url, tenant);
    const samples = await sampleData(url, tenant.tenant, servers);
    const [{ patients }] = (await query<{ patients: number }>(
      url,
      'SELECT count(*)::int AS patients FROM patients WHERE tenant_id = $1',
      [samples.tenantId],
    )) as [{ patients: number }];
    const list = scenarios(samples);
    log('== access log: size per 1,000 records');
    const growth = await sizePerRecord(url, servers, tenant.tenant, list);
    log('== access log: on against off');
    const paired = await throughput(url, servers, tenant.tenant, list);
    servers.processes.off.kill('SIGTERM');
    log(`== access log: ${RECORDS.toLocaleString('en-US')} records`);
    const loaded = await loadRecords(url, samples);
    // The export pages this run read (the size's and the load's) name their patients by the page:
    // those patients' histories hold records naming 500.
    const [scale] = await query<{ records: number; patientRows: number; bytes: number; exportPatients: number }>(
      url,
      `SELECT (SELECT count(*) FROM access_log WHERE tenant_id = $1)::float8 AS records,
              (SELECT sum(cardinality(patient_ids)) FROM access_log WHERE tenant_id = $1)::float8 AS "patientRows",
              pg_total_relation_size('access_log')::float8 AS bytes,
              (SELECT count(DISTINCT patient)
                 FROM access_log, unnest(patient_ids) AS patient
                WHERE tenant_id = $1 AND operation LIKE 'GET %/export/%')::float8 AS "exportPatients"`,
      [samples.tenantId],
    );
    const asked = await questions(url, servers, tenant.tenant, samples);
    await query(url, 'DROP TABLE IF EXISTS bench_access_patients, bench_access_actors');
    return report({ build, patients, growth, paired, loaded, scale: scale!, asked, seconds: (Date.now() - started) / 1000 });
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    own?.cluster.stop();
  }
}

/** The commit the build was made from, and whether src/ differed from it. */
function buildOf(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src') ? ' with uncommitted changes to src/' : ''}`;
  } catch {
    return 'an unknown commit';
  }
}

/** What one walk of the whole PATIENT export adds to the log, from the export pages measured. */
function exportWalk(measured: Growth | undefined, patients: number, n: (value: number, digits?: number) => string): string {
  if (!measured || measured.records === 0) return '';
  const perRecord = [...measured.bytes.values()].reduce((sum, bytes) => sum + bytes, 0) / measured.records;
  const pages = Math.ceil(patients / EXPORT_PAGE);
  return `One walk of the whole PATIENT export of these ${n(patients)} patients is ${n(pages)} such records naming every patient once: about ${n((pages * perRecord) / 2 ** 20)} MiB of log (an integrator walking it daily: ${n((365 * pages * perRecord) / 2 ** 30, 1)} GiB a year).\n`;
}

function report(figures: {
  build: string;
  patients: number;
  growth: Growth[];
  paired: Paired[];
  loaded: { seconds: number; vacuumSeconds: number };
  scale: { records: number; patientRows: number; bytes: number; exportPatients: number };
  asked: Question[];
  seconds: number;
}): string {
  const { patients, growth, paired, loaded, scale, asked } = figures;
  const n = (value: number, digits = 0) =>
    value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const kb = (bytes: number, records: number) => (records > 0 ? n(((bytes / records) * 1000) / 1024) : '–');
  const ratios = paired.map((p) => {
    const ratio = median(p.runs.on.map((on, i) => on.result.rps / p.runs.off[i]!.result.rps));
    const errors = [...p.runs.on, ...p.runs.off].reduce((sum, r) => sum + r.result.errors + r.result.non2xx, 0);
    const pick = (side: Side, key: keyof LoadResult) => median(p.runs[side].map((r) => r.result[key]));
    const counted = (side: Side, f: (run: Run) => number | null, digits: number) => {
      const values = p.runs[side].map(f).filter((v): v is number => v !== null);
      return values.length > 0 ? median(values).toFixed(digits) : '–';
    };
    return {
      row: `| ${p.name} | ${n(pick('on', 'rps'))} | ${n(pick('off', 'rps'))} | ${ratio.toFixed(2)}: ${ratio >= RATIO_TARGET ? 'met' : "MISSED (why: where the record's cost goes, below)"} | ${pick('on', 'p95').toFixed(1)} | ${pick('off', 'p95').toFixed(1)} | ${counted('on', (r) => r.statementsPerRequest, 2)} | ${counted('off', (r) => r.statementsPerRequest, 2)} | ${counted('on', (r) => r.logWrites, 2)} | ${counted('on', (r) => r.logWriteMs, 3)} | ${counted('on', (r) => r.logPlanMs, 3)} | ${counted('on', (r) => r.walPerRequest && r.walPerRequest / 1024, 1)} | ${counted('off', (r) => r.walPerRequest && r.walPerRequest / 1024, 1)} | ${errors} |`,
      ok: ratio >= RATIO_TARGET,
    };
  });
  // Where the record's cost goes: each part's CPU per request on and off, and the machine's ratio.
  const cpuRows = paired.map((p) => {
    const per = (side: Side, part: CpuPart) => {
      const values = p.runs[side].map((r) => r.cpu[part]).filter((v): v is number => v !== null);
      return values.length > 0 ? median(values) : null;
    };
    const cell = (part: CpuPart) => {
      const on = per('on', part);
      const off = per('off', part);
      return on === null || off === null ? '–' : `${n(on)} / ${n(off)} (${on >= off ? '+' : '−'}${n(Math.abs(on - off))})`;
    };
    const machineOn = per('on', 'machine');
    const machineOff = per('off', 'machine');
    return `| ${p.name} | ${CPU_PARTS.map(cell).join(' | ')} | ${machineOn && machineOff ? (machineOff / machineOn).toFixed(2) : '–'} |`;
  });
  // Columns: each table, then its indexes, as sizes() lists them.
  const relations = [...(growth[0]?.bytes.keys() ?? [])];
  const sizeRows = growth.map((g) => {
    const total = [...g.bytes.values()].reduce((sum, bytes) => sum + bytes, 0);
    return `| ${g.name} | ${n(g.reads)}${g.failed ? ` (${g.failed} not 2xx)` : ''} | ${n(g.records)} | ${g.records > 0 ? n(g.patientRows / g.records, 1) : '–'} | ${relations.map((relation) => kb(g.bytes.get(relation) ?? 0, g.records)).join(' | ')} | **${kb(total, g.records)}** |`;
  });
  const questionRows = asked.map((q) => {
    const ms = q.timed.map((t) => t.ms);
    const totals = q.timed.map((t) => t.total);
    const p95 = percentile(ms, 95);
    const ok = q.reference || p95 < P95_TARGET_MS;
    const kib = q.timed.map((t) => t.bytes / 1024);
    return {
      row: `| ${q.name} | \`${q.request}\` | ${q.reference ? '–' : `${n(median(totals))} (${n(Math.min(...totals))}–${n(Math.max(...totals))})`} | ${n(median(kib), 1)} (${n(Math.max(...kib), 1)}) | ${median(ms).toFixed(1)} | **${p95.toFixed(1)}** | ${Math.max(...ms).toFixed(1)} | ${q.reference ? '–' : ok ? 'met' : 'MISSED'}${q.failed ? ` (${q.failed} not 2xx)` : ''} |`,
      ok,
      q,
      p95,
    };
  });
  const missed = questionRows.filter((r) => !r.ok);
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  return [
    '',
    `## Access log${quick ? ' (quick)' : ''}`,
    '',
    `${new Date().toISOString()} — ${machine}; PostgreSQL on the same machine (synchronous_commit ${synchronousCommit}); one tenant of ${n(patients)} patients; the build of ${figures.build}. Two Cairn servers from the same build on the same database (\`cairn serve --workers 2\`, job workers off, so no sealing job runs): the access log on, and off (CAIRN_ACCESS_LOG=false).`,
    '',
    `**Access log on ÷ off (throughput)**: ${CONNECTIONS} connections, ${seconds} s per run, the two servers taking turns over ${ROUNDS} rounds (medians; the ratio is the median of the rounds' ratios); the export page ${EXPORT_CONNECTIONS} connections, ${EXPORT_SECONDS} s a run. Statements per request and the log's INSERTs (how many per request: fewer than one where answers share one, and their execute and plan times per request, planning where tracked) from pg_stat_statements; WAL per request from pg_stat_wal. Target ≥ ${RATIO_TARGET}.`,
    '',
    "| Scenario | on req/s | off req/s | on ÷ off | p95 ms on | p95 ms off | statements / request on | statements / request off | the log's INSERTs / request | their execute ms / request | their plan ms / request | WAL KiB / request on | WAL KiB / request off | errors |",
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...ratios.map((r) => r.row),
    '',
    `**Where the record's cost goes** (CPU µs per request, on / off (difference), medians of the rounds; read from /proc around each run): the Cairn server (primary and workers); PostgreSQL's backends (the sessions running the statements, the record's insert and commit in the on server's); its WAL writer (writing and flushing the record's WAL); its other background processes; and the whole machine, the load's client included. The machine's ${os.cpus().length} cores are all busy in these runs, so req/s is about the cores over the machine's CPU per request: on ÷ off follows off's CPU ÷ on's (last column). A part shown – was not measurable here (PostgreSQL on another machine).`,
    '',
    '| Scenario | Cairn | PostgreSQL backends | WAL writer | other PostgreSQL | whole machine | off ÷ on (machine CPU) |',
    '|---|---|---|---|---|---|---|',
    ...cpuRows,
    '',
    `**Size per 1,000 records** (KiB): the growth of each table (pg_table_size: heap, TOAST and their maps) and of each index (pg_relation_size) over a known number of logged reads on the server with the log on, nothing else running, divided per 1,000 records written.`,
    '',
    `| Read | reads | records | patients per record | ${relations.join(' | ')} | **total** |`,
    `|---|---|---|---|${relations.map(() => '---|').join('')}---|`,
    ...sizeRows,
    '',
    exportWalk(growth.at(-1), patients, n),
    `**The two questions at scale**: ${n(RECORDS)} records inserted into the real tables over ${SPAN_DAYS} days by ${ACTORS} users, one in ${WIDE_EVERY} naming ${WIDE_PATIENTS} patients (${n(loaded.seconds)} s), then VACUUM ANALYZE as autovacuum would (${n(loaded.vacuumSeconds)} s). At the time of asking: ${n(scale.records)} records naming ${n(scale.patientRows)} patients in all in the tenant, ${n(scale.bytes / 2 ** 30, 2)} GiB with indexes (${n(scale.bytes / Math.max(1, scale.records) / 1.024)} KiB per 1,000 records as inserted). ${QUESTION_REQUESTS} requests per question over HTTP, one at a time, after ${QUESTION_WARMUP} untimed; each user of the ${ACTORS} in turn, patients picked evenly; ${n(scale.exportPatients)} of the ${n(patients)} patients (the first pages of the export's order) are also named by the export pages read above, 500 to a record, whose \`patientIds\` make those patients' answers long. Target p95 < ${P95_TARGET_MS} ms.`,
    '',
    "| Question | request | records in the answer's total, median (range) | answer KiB, median (max) | p50 ms | p95 ms | max ms | target |",
    '|---|---|---|---|---|---|---|---|',
    ...questionRows.map((r) => r.row),
    '',
    missed.length > 0
      ? `**MISSED:** ${missed.map((r) => `${r.q.name} (p95 ${r.p95.toFixed(1)} ms)`).join('; ')}. Its statements and their plans are below.\n`
      : '',
    ...questionRows
      .filter((r) => !r.q.reference)
      .flatMap((r) => [
        `<details><summary>${r.q.name}: the statements of the request at the p95, with the plans they ran with (the server's session: jit off, generic plans)</summary>`,
        '',
        ...r.q.plans.flatMap((plan) => ['```text', plan, '```', '']),
        '</details>',
        '',
      ]),
    `Whole access-log bench: ${n(figures.seconds)} s.`,
    '',
  ].join('\n');
}

standalone(import.meta.url, 'access-log', () => benchAccessLog(), children);
