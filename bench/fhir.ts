/**
 * `npm run bench:fhir [-- --quick]` (and the end of `npm run bench`): what the FHIR R4 API costs
 * against Cairn's own, and how fast its bulk export goes, in one run.
 *
 * 1. FHIR ÷ Cairn (throughput): one Cairn server from the build (`cairn serve --workers 2`, job
 *    workers off, as run.ts measures) serves both APIs on the same data; the two take turns under
 *    the same load (autocannon from its own process, bench/load.ts), a short warm-up of each first,
 *    the first of each round alternating, medians over the rounds; the ratio is the median of the
 *    rounds' ratios. Target ≥ 0.8. Two pairs:
 *    - read by id: `GET …/fhir/R4/Patient/{id}` against `GET …/patients/{id}`, the same random
 *      ids (sampled from the table) on both sides;
 *    - search: `GET …/fhir/R4/Patient?family={prefix}&_count=20` against Cairn's closest,
 *      `GET …/patients?search={prefix}&size=20`, with the same prefixes (the first five letters of
 *      sampled surnames). Cairn has no last-name-prefix filter: `search` is a substring of the
 *      names, phones, emails and identifiers, and its page object counts every match (the FHIR
 *      search counts only with `_summary=count`). What each side's page held, and of how many
 *      matches, is measured over a sample of the prefixes and printed beside the figures.
 *    Statements per request from pg_stat_statements, when the database has it.
 * 2. Bulk export: on a second server from the same build with job workers on (the export is a job;
 *    the first server is stopped, and the jobs already due are waited out so nothing else runs),
 *    `GET …/fhir/R4/$export?_type=Patient` (system level, `Accept: application/fhir+json`,
 *    `Prefer: respond-async`), its status URL (Content-Location) polled every 250 ms until 200;
 *    resources per second are the manifest's counts ÷ the wall time from the kick-off to the
 *    manifest (and ÷ the job's own time, from the export's row). Then every file is downloaded, one
 *    at a time, counting its bytes and lines, and the export is deleted. A kick-off answering 404 (a build without `$export`) skips this
 *    part with a message; any other failure is reported in the section, not thrown.
 *
 * Standalone it makes its own PostgreSQL (tuned as run.ts's) and a tenant of 1,000,000 patients
 * (100,000 with --quick) with `cairn seed bulk`; from run.ts it uses the run's database and large
 * tenant. Every server it starts is stopped when it ends, failed or not.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import type { SharedTenant } from './access-log.ts';
import { benchClient, cli, load, log, median, query, quick, root, standalone, token, tunedPostgres, waitFor } from './common.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { workerPids } from './memory.ts';

const PATIENTS = quick ? 100_000 : 1_000_000;
const seconds = quick ? 3 : 10;
const ROUNDS = quick ? 2 : 3;
const CONNECTIONS = 10;
const RATIO_TARGET = 0.8;
/** The page size of both searches. */
const PAGE = 20;
/** Letters of a surname searched for, as run.ts's "the start of one". */
const PREFIX = 5;
/** Prefixes whose answers are compared before the load (what each side's page holds, of how many). */
const COMPARED = 40;
/** How often the export's status is asked: often, so the wall time is the export's, not the poll's. */
const POLL_MS = 250;
/** An export whose X-Progress does not move for this long has stalled. */
const STALL_MS = 10 * 60_000;
const instanceName = 'sandbox';
const children: ChildProcess[] = [];

type Api = 'fhir' | 'cairn';

// ---- Servers ----

interface Server {
  base: string;
  process: ChildProcess;
  /** A token of the bench's client, issued again when it runs out (tokens live an hour). */
  token: string;
  renew(): Promise<string>;
}

/**
 * The build's server on the run's database: job workers off for the throughput (an API-only node,
 * as run.ts measures), on (their default) for the export, whose work is a job.
 */
async function startServer(url: string, tenant: SharedTenant, dataDir: string, jobs: boolean): Promise<Server> {
  const port = await freePort();
  const { CAIRN_JOB_WORKERS: _inherited, ...inherited } = process.env;
  const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--workers', '2'], {
    cwd: root,
    env: {
      ...inherited,
      DATABASE_URL: url,
      CAIRN_DEMO: 'false',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      // Export files go to the local store under a directory of this bench's own.
      CAIRN_DATA_DIR: dataDir,
      CAIRN_TOKEN_LIMIT: '100000000',
      ...(jobs ? {} : { CAIRN_JOB_WORKERS: '0' }),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/health/ready`);
  const server: Server = {
    base,
    process: child,
    token: await token(base, tenant.clientKey, tenant.clientSecret),
    async renew() {
      server.token = await token(base, tenant.clientKey, tenant.clientSecret);
      return server.token;
    },
  };
  return server;
}

/** Whether a process is running (a zombie left to an init that does not reap is not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') !== true;
  } catch {
    return true;
  }
}

/**
 * Stops a server and waits for it and its workers: its primary exits once it has signalled them,
 * and a worker may still finish a job (an export's file removals) after that. Whatever is still
 * running after 15 s is killed outright.
 */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const workers = workerPids(child);
  const deadline = Date.now() + 15_000;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
  if (!stopped) {
    child.kill('SIGKILL');
    await exited;
  }
  while (workers.some(running) && Date.now() < deadline) await sleep(100);
  for (const pid of workers.filter(running)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

// ---- Samples ----

interface Samples {
  tenantId: string;
  instanceId: string;
  /** The instance's patients. */
  patients: number;
  patientIds: string[];
  prefixes: string[];
  /** Patients given two blood pressures (the demo formation's vitals, a US Core Observation) for the bench. */
  vitalsPatientIds: string[];
}

/** Patients whose vital signs are read, each with two records. */
const VITALS_PATIENTS = 1000;

/**
 * Two blood pressures for each of these patients, as the demo formation's `vitals` CDT holds them
 * (ids from the patient's, so a second run adds none): the records both sides of the Observation
 * pair read.
 */
async function seedVitals(url: string, tenantId: string, instanceId: string, patientIds: string[]): Promise<void> {
  await query(
    url,
    `INSERT INTO cdt_records (tenant_id, instance_id, id, patient_id, cdt_name, values, external_guid, created_at, updated_at,
       created_by_name, updated_by_name)
     SELECT $1::uuid, $2::uuid, md5(p::text || 'vitals' || n)::uuid, p, 'vitals',
       jsonb_build_object('cdtf-systolic', 110 + n * 7, 'cdtf-diastolic', 70 + n * 3, 'cdtf-position', 'SITTING',
         'cdtf-measured-on', to_char((now() - n * interval '10 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
       md5(p::text || 'vitals-guid' || n)::uuid, now() - n * interval '10 days', now() - n * interval '10 days',
       'SYSTEM:seed', 'SYSTEM:seed'
     FROM unnest($3::uuid[]) AS p, generate_series(1, 2) AS n
     ON CONFLICT DO NOTHING`,
    [tenantId, instanceId, patientIds],
  );
}

/** Real ids and surnames, as run.ts samples them. */
async function sampleData(url: string, tenant: string): Promise<Samples> {
  const [{ id: tenantId }] = (await query<{ id: string }>(url, 'SELECT id FROM tenants WHERE name = $1', [tenant])) as [
    { id: string },
  ];
  const [{ id: instanceId }] = (await query<{ id: string }>(url, 'SELECT id FROM instances WHERE tenant_id = $1 AND name = $2', [
    tenantId,
    instanceName,
  ])) as [{ id: string }];
  const rows = await query<{ id: string; last_name: string }>(
    url,
    'SELECT id, last_name FROM patients TABLESAMPLE SYSTEM (5) WHERE tenant_id = $1 AND instance_id = $2 LIMIT 4000',
    [tenantId, instanceId],
  );
  const [{ patients }] = (await query<{ patients: number }>(
    url,
    'SELECT count(*)::int AS patients FROM patients WHERE tenant_id = $1 AND instance_id = $2',
    [tenantId, instanceId],
  )) as [{ patients: number }];
  const vitalsPatientIds = rows.slice(0, VITALS_PATIENTS).map((row) => row.id);
  await seedVitals(url, tenantId, instanceId, vitalsPatientIds);
  return {
    tenantId,
    instanceId,
    patients,
    patientIds: rows.map((row) => row.id),
    prefixes: rows.slice(0, 400).map((row) => row.last_name.slice(0, PREFIX)),
    vitalsPatientIds,
  };
}

// ---- 1. Throughput, FHIR against Cairn ----

interface Side {
  /** The request's shape, for the table. */
  request: string;
  /** Paths under /{tenant}/{instance}. */
  paths: string[];
  /** A search by POST: its forms (application/x-www-form-urlencoded), one at random a request. */
  forms?: string[];
}

interface Pair {
  name: string;
  sides: Record<Api, Side>;
}

function pairs(samples: Samples): Pair[] {
  const encode = encodeURIComponent;
  return [
    {
      name: 'read by id',
      sides: {
        fhir: { request: 'GET …/fhir/R4/Patient/{id}', paths: samples.patientIds.map((id) => `/fhir/R4/Patient/${id}`) },
        cairn: { request: 'GET …/patients/{id}', paths: samples.patientIds.map((id) => `/patients/${id}`) },
      },
    },
    {
      name: `search by surname prefix, ${PAGE} a page`,
      sides: {
        fhir: {
          request: `GET …/fhir/R4/Patient?family={prefix}&_count=${PAGE}`,
          paths: samples.prefixes.map((prefix) => `/fhir/R4/Patient?family=${encode(prefix)}&_count=${PAGE}`),
        },
        cairn: {
          request: `GET …/patients?search={prefix}&size=${PAGE}`,
          paths: samples.prefixes.map((prefix) => `/patients?search=${encode(prefix)}&size=${PAGE}`),
        },
      },
    },
    {
      name: `search by POST, ${PAGE} a page`,
      sides: {
        fhir: {
          request: `POST …/fhir/R4/Patient/_search family={prefix}&_count=${PAGE}`,
          paths: ['/fhir/R4/Patient/_search'],
          forms: samples.prefixes.map((prefix) => `family=${encode(prefix)}&_count=${PAGE}`),
        },
        cairn: {
          request: `GET …/patients?search={prefix}&size=${PAGE}`,
          paths: samples.prefixes.map((prefix) => `/patients?search=${encode(prefix)}&size=${PAGE}`),
        },
      },
    },
    {
      name: 'vital signs of a patient',
      sides: {
        fhir: {
          request: `GET …/fhir/R4/Observation?patient={id}&category=vital-signs&_count=${PAGE}`,
          paths: samples.vitalsPatientIds.map((id) => `/fhir/R4/Observation?patient=${id}&category=vital-signs&_count=${PAGE}`),
        },
        cairn: {
          request: `GET …/patients/{id}/cdts/vitals?size=${PAGE}`,
          paths: samples.vitalsPatientIds.map((id) => `/patients/${id}/cdts/vitals?size=${PAGE}`),
        },
      },
    },
  ];
}

/** What the two searches answer for the same prefixes: entries on the page, and matches in all. */
interface Answers {
  prefixes: number;
  fhirPage: number;
  fhirMatches: number;
  cairnPage: number;
  cairnMatches: number;
}

/** Each side's answer for the first prefixes, one request at a time: every request must succeed. */
async function compareAnswers(server: Server, tenant: string, samples: Samples): Promise<Answers> {
  const get = async (path: string) => {
    const response = await fetch(`${server.base}/${tenant}/${instanceName}${path}`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  // Both reads by id, once, so a route that fails is found before the load, not as its errors.
  const id = samples.patientIds[0]!;
  await get(`/fhir/R4/Patient/${id}`);
  await get(`/patients/${id}`);
  // The Observation pair's two sides hold the same records.
  const vitalsOf = samples.vitalsPatientIds[0]!;
  const observations = (await get(`/fhir/R4/Observation?patient=${vitalsOf}&category=vital-signs`)) as { entry?: unknown[] };
  const records = (await get(`/patients/${vitalsOf}/cdts/vitals`)) as { data?: { content?: unknown[] } };
  if (observations.entry?.length !== 2 || records.data?.content?.length !== 2) {
    throw new Error(
      `vital signs: FHIR found ${observations.entry?.length ?? 0}, Cairn ${records.data?.content?.length ?? 0}, not 2 and 2`,
    );
  }
  const prefixes = samples.prefixes.slice(0, COMPARED);
  const found = {
    fhirPage: [] as number[],
    fhirMatches: [] as number[],
    cairnPage: [] as number[],
    cairnMatches: [] as number[],
  };
  for (const prefix of prefixes) {
    const encoded = encodeURIComponent(prefix);
    const bundle = (await get(`/fhir/R4/Patient?family=${encoded}&_count=${PAGE}`)) as { entry?: unknown[] };
    const counted = (await get(`/fhir/R4/Patient?family=${encoded}&_summary=count`)) as { total?: number };
    const page = (await get(`/patients?search=${encoded}&size=${PAGE}`)) as { content?: unknown[]; totalElements?: number };
    found.fhirPage.push(bundle.entry?.length ?? 0);
    found.fhirMatches.push(counted.total ?? 0);
    found.cairnPage.push(page.content?.length ?? 0);
    found.cairnMatches.push(page.totalElements ?? 0);
  }
  return {
    prefixes: prefixes.length,
    fhirPage: median(found.fhirPage),
    fhirMatches: median(found.fhirMatches),
    cairnPage: median(found.cairnPage),
    cairnMatches: median(found.cairnMatches),
  };
}

interface Run {
  result: LoadResult;
  /** SQL statements per request (pg_stat_statements), when the database has it. */
  statements: number | null;
}

/** A load run, with the statements the database ran meanwhile (pg_stat_statements reset first, read after). */
async function measured(url: string, plan: LoadPlan): Promise<Run> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const available = await db.query('SELECT pg_stat_statements_reset()').then(
      () => true,
      () => false,
    );
    const result = await load(plan);
    if (!available) return { result, statements: null };
    const { rows } = await db.query<{ calls: number }>(
      `SELECT coalesce(sum(calls), 0)::float8 AS calls FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%'`,
    );
    return { result, statements: rows[0]!.calls / Math.max(1, result.sent) };
  } finally {
    await db.end();
  }
}

interface Paired {
  pair: Pair;
  runs: Record<Api, Run[]>;
}

const ratioOf = (p: Paired) => median(p.runs.fhir.map((fhir, i) => fhir.result.rps / p.runs.cairn[i]!.result.rps));

async function throughput(url: string, server: Server, tenant: string, list: Pair[]): Promise<Paired[]> {
  const plan = (side: Side, runSeconds = seconds): LoadPlan => ({
    url: server.base,
    ...(side.forms
      ? {
          method: 'POST',
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/x-www-form-urlencoded' },
          bodies: side.forms,
        }
      : { method: 'GET', headers: { authorization: `Bearer ${server.token}` } }),
    paths: side.paths.map((p) => `/${tenant}/${instanceName}${p}`),
    connections: CONNECTIONS,
    seconds: runSeconds,
  });
  const paired: Paired[] = [];
  for (const pair of list) {
    // A short warm-up of each fills caches and lets the JIT settle.
    for (const api of ['fhir', 'cairn'] as const) await load(plan(pair.sides[api], quick ? 1 : 2));
    const runs: Record<Api, Run[]> = { fhir: [], cairn: [] };
    // Turns, round by round, the first alternating: a passing disturbance falls on both.
    for (let round = 0; round < ROUNDS; round++) {
      const order: Api[] = round % 2 === 0 ? ['fhir', 'cairn'] : ['cairn', 'fhir'];
      for (const api of order) runs[api].push(await measured(url, plan(pair.sides[api])));
    }
    const done = { pair, runs };
    paired.push(done);
    const rps = (api: Api) => median(runs[api].map((r) => r.result.rps)).toFixed(0);
    log(`${pair.name.padEnd(36)} FHIR ${rps('fhir')} req/s, Cairn ${rps('cairn')} req/s: ${ratioOf(done).toFixed(2)}`);
  }
  return paired;
}

// ---- 2. Bulk export ----

interface ExportFigures {
  /** Why the export was not measured (a build without `$export`), or how it failed. */
  skipped?: string;
  failed?: string;
  /** The jobs due when the export's server started, waited for before the kick-off. */
  queue?: { due: number; seconds: number; idle: boolean };
  patients: number;
  resources?: number;
  files?: number;
  wallSeconds?: number;
  /** From the export's row: created to completed. */
  jobSeconds?: number | null;
  polls?: number;
  bytes?: number;
  lines?: number;
  downloadSeconds?: number;
  /** The manifest's counts against the lines downloaded, when they differ. */
  mismatch?: string;
}

/** Waits (up to two minutes) until no job is due or running: what was due at first, and how long it took. */
async function quietQueue(url: string): Promise<{ due: number; seconds: number; idle: boolean }> {
  const began = Date.now();
  const count = async () => {
    const [row] = await query<{ due: number }>(
      url,
      `SELECT count(*)::int AS due FROM jobs
        WHERE state = 'RUNNING' OR (state = 'QUEUED' AND (run_at IS NULL OR run_at <= now()))`,
    );
    return row?.due ?? 0;
  };
  const due = await count();
  let left = due;
  while (left > 0 && Date.now() - began < 120_000) {
    await sleep(500);
    left = await count();
  }
  return { due, seconds: (Date.now() - began) / 1000, idle: left === 0 };
}

/** A request with the server's token, issued again once if it ran out. */
async function authed(server: Server, url: string, init: RequestInit = {}): Promise<Response> {
  const send = () =>
    fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${server.token}` } });
  const response = await send();
  if (response.status !== 401) return response;
  await response.arrayBuffer();
  await server.renew();
  return send();
}

/** A file's bytes and lines, read as it streams. */
async function download(server: Server, url: string): Promise<{ bytes: number; lines: number }> {
  const response = await authed(server, url, { headers: { accept: 'application/fhir+ndjson' } });
  if (!response.ok || !response.body) throw new Error(`download ${url}: ${response.status} ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { bytes, lines };
}

interface Manifest {
  output: { type: string; url: string; count?: number }[];
  error?: unknown[];
}

async function bulkExport(url: string, server: Server, tenant: string, samples: Samples): Promise<ExportFigures> {
  const figures: ExportFigures = { patients: samples.patients };
  const fhirBase = `${server.base}/${tenant}/${instanceName}/fhir/R4`;
  // The jobs already due (the access log's sealing of the reads above, say) run first, so the export runs alone.
  figures.queue = await quietQueue(url);
  log(`== FHIR: $export?_type=Patient of ${samples.patients.toLocaleString('en-US')} patients`);
  const start = async () => {
    const at = performance.now();
    const response = await authed(server, `${fhirBase}/$export?_type=Patient`, {
      headers: { accept: 'application/fhir+json', prefer: 'respond-async' },
    });
    return { at, response, text: await response.text() };
  };
  const { at: began, response: kickOff, text: kickOffText } = await start();
  if (kickOff.status === 404) {
    figures.skipped = `the kick-off answered 404 (this build serves no \`$export\`): ${kickOffText.slice(0, 300)}`;
    log(`FHIR export skipped: ${figures.skipped}`);
    return figures;
  }
  const location = kickOff.headers.get('content-location');
  if (kickOff.status !== 202 || !location) {
    figures.failed = `the kick-off answered ${kickOff.status}${location ? '' : ' without Content-Location'}: ${kickOffText.slice(0, 500)}`;
    return figures;
  }
  let manifest: Manifest | undefined;
  let progress = '';
  let movedAt = Date.now();
  let polls = 0;
  while (!manifest) {
    await sleep(POLL_MS);
    const status = await authed(server, location);
    polls++;
    if (status.status === 202) {
      await status.arrayBuffer();
      const now = status.headers.get('x-progress') ?? '';
      if (now !== progress) {
        progress = now;
        movedAt = Date.now();
        if (polls % 20 === 0) log(`export: ${progress}`);
      } else if (Date.now() - movedAt > STALL_MS) {
        figures.failed = `no progress for ${STALL_MS / 60_000} minutes (X-Progress: ${progress || 'none'})`;
        break;
      }
      continue;
    }
    const text = await status.text();
    if (status.status !== 200) {
      figures.failed = `the status answered ${status.status}: ${text.slice(0, 500)}`;
      break;
    }
    manifest = JSON.parse(text) as Manifest;
  }
  const wallSeconds = (performance.now() - began) / 1000;
  const exportId = location.slice(location.lastIndexOf('/') + 1);
  try {
    if (!manifest) return figures;
    figures.wallSeconds = wallSeconds;
    figures.polls = polls;
    figures.files = manifest.output.length;
    figures.resources = manifest.output.reduce((sum, file) => sum + (file.count ?? 0), 0);
    log(`export: ${figures.resources.toLocaleString('en-US')} resources in ${figures.files} files, ${wallSeconds.toFixed(1)} s`);
    // The job's own time, from its row (created at the kick-off, completed by the job's last write).
    const [row] = await query<{ seconds: number | null }>(
      url,
      'SELECT extract(epoch FROM completed_at - created_at)::float8 AS seconds FROM fhir_exports WHERE tenant_id = $1 AND id = $2',
      [samples.tenantId, exportId],
    ).catch(() => []);
    figures.jobSeconds = row?.seconds ?? null;
    // Every file, one at a time: its bytes, and its lines against the manifest's count.
    const downloadBegan = performance.now();
    let bytes = 0;
    let lines = 0;
    const differing: string[] = [];
    for (const [index, file] of manifest.output.entries()) {
      const got = await download(server, file.url);
      bytes += got.bytes;
      lines += got.lines;
      if (file.count !== undefined && got.lines !== file.count)
        differing.push(`file ${index + 1}: ${got.lines} lines, count ${file.count}`);
    }
    figures.downloadSeconds = (performance.now() - downloadBegan) / 1000;
    figures.bytes = bytes;
    figures.lines = lines;
    if (differing.length > 0) figures.mismatch = differing.slice(0, 5).join('; ');
    log(`export: downloaded ${(bytes / 2 ** 20).toFixed(1)} MiB in ${figures.downloadSeconds.toFixed(1)} s`);
  } catch (error) {
    figures.failed = `after the manifest: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    // Its files are no longer needed (Bulk Data: DELETE on the status URL).
    await authed(server, location, { method: 'DELETE' }).then(
      (response) => response.arrayBuffer(),
      () => undefined,
    );
  }
  return figures;
}

// ---- The bench ----

/** This bench's own PostgreSQL, tuned as run.ts's, and its tenant. */
async function ownTenant(): Promise<{ cluster: Cluster; tenant: SharedTenant }> {
  // pg_stat_statements counts each request's statements.
  const cluster = await startCluster({ ...tunedPostgres(), shared_preload_libraries: 'pg_stat_statements' });
  const databaseUrl = cluster.url('postgres');
  try {
    const env = { ...process.env, DATABASE_URL: databaseUrl, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
    const tenant = { databaseUrl, tenant: 'fhir-bench', clientKey: 'fhir-bench', clientSecret: 'fhir-bench-secret-0123' };
    log(`== FHIR: a tenant of ${PATIENTS.toLocaleString('en-US')} patients`);
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

/** What must go however the bench ends: its servers, its files, and (standalone) its PostgreSQL. */
const leftovers: { dataDir?: string; cluster?: Cluster } = {};

function cleanUp() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  // Again while it is there: a removal racing another (a worker's last file removals) can stop short.
  const dir = leftovers.dataDir;
  for (let attempt = 0; dir && attempt < 3 && fs.existsSync(dir); attempt++) {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
  leftovers.dataDir = undefined;
  leftovers.cluster?.stop();
  leftovers.cluster = undefined;
}

export async function benchFhir(shared?: SharedTenant): Promise<string> {
  log('== FHIR: read and search against Cairn’s own, and the bulk export');
  const started = Date.now();
  const build = buildOf();
  // Standalone, an interrupt still stops the servers and the PostgreSQL this bench started.
  const interrupted = () => {
    cleanUp();
    process.exit(130);
  };
  if (!shared) {
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
  }
  process.once('exit', cleanUp);
  try {
    const own = shared ? undefined : await ownTenant();
    leftovers.cluster = own?.cluster;
    const tenant = shared ?? own!.tenant;
    const url = tenant.databaseUrl;
    leftovers.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-fhir-'));
    const samples = await sampleData(url, tenant.tenant);

    log('== FHIR: FHIR against Cairn, one server, job workers off');
    const api = await startServer(url, tenant, leftovers.dataDir, false);
    const answers = await compareAnswers(api, tenant.tenant, samples);
    const paired = await throughput(url, api, tenant.tenant, pairs(samples));
    await stopServer(api.process);

    log('== FHIR: bulk export, a server with job workers on');
    const exporter = await startServer(url, tenant, leftovers.dataDir, true);
    const exported = await bulkExport(url, exporter, tenant.tenant, samples).catch(
      (error: unknown): ExportFigures => ({
        patients: samples.patients,
        failed: error instanceof Error ? error.message : String(error),
      }),
    );
    await stopServer(exporter.process);
    return report({ build, patients: samples.patients, answers, paired, exported, seconds: (Date.now() - started) / 1000 });
  } finally {
    for (const child of children) await stopServer(child);
    cleanUp();
    process.off('exit', cleanUp);
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
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

function report(figures: {
  build: string;
  patients: number;
  answers: Answers;
  paired: Paired[];
  exported: ExportFigures;
  seconds: number;
}): string {
  const { patients, answers, paired, exported: e } = figures;
  const n = (value: number, digits = 0) =>
    value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const rows = paired.flatMap((p) => {
    const ratio = ratioOf(p);
    const pick = (api: Api, key: keyof LoadResult) => median(p.runs[api].map((r) => r.result[key]));
    const statements = (api: Api) => {
      const values = p.runs[api].flatMap((r) => (r.statements === null ? [] : [r.statements]));
      return values.length > 0 ? median(values).toFixed(2) : '–';
    };
    const errors = (api: Api) => p.runs[api].reduce((sum, r) => sum + r.result.errors + r.result.non2xx, 0);
    const row = (api: Api, first: boolean) =>
      `| ${first ? p.pair.name : ''} | ${api === 'fhir' ? 'FHIR' : 'Cairn'} | \`${p.pair.sides[api].request}\` | ${n(pick(api, 'rps'))} | ${pick(api, 'p50').toFixed(1)} | ${pick(api, 'p95').toFixed(1)} | ${statements(api)} | ${errors(api)} | ${first ? `**${ratio.toFixed(2)}: ${ratio >= RATIO_TARGET ? 'PASS' : 'FAIL'}**` : ''} |`;
    return [row('fhir', true), row('cairn', false)];
  });
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const mib = (bytes: number) => n(bytes / 2 ** 20, 1);
  const exportLines: string[] = [];
  if (e.skipped) {
    exportLines.push(`**Skipped:** ${e.skipped}.`);
  } else if (e.resources === undefined) {
    exportLines.push(`**FAILED:** ${e.failed ?? 'no manifest'}.`);
  } else {
    const resources = e.resources;
    const complete = resources === patients;
    exportLines.push(
      '| Figure | Value |',
      '|---|---|',
      `| patients in the instance | ${n(patients)} |`,
      `| resources in the manifest | ${n(resources)}${complete ? '' : ` (**not the instance's ${n(patients)}**)`} |`,
      `| files | ${n(e.files ?? 0)} (at most ${process.env.CAIRN_FHIR_EXPORT_FILE_RESOURCES ?? '10,000'} resources each, CAIRN_FHIR_EXPORT_FILE_RESOURCES) |`,
      `| before the kick-off | ${e.queue ? `${n(e.queue.due)} jobs due, ${e.queue.idle ? 'run' : '**still not all run**'} in ${n(e.queue.seconds, 1)} s` : '–'} |`,
      `| wall time, kick-off to manifest | ${n(e.wallSeconds ?? 0, 1)} s (${n(e.polls ?? 0)} status polls) |`,
      `| **resources per second** (manifest ÷ wall time) | **${n(resources / Math.max(0.001, e.wallSeconds ?? 0))}** |`,
      `| the job's own time (the export's row, created → completed) | ${e.jobSeconds != null ? `${n(e.jobSeconds, 1)} s: ${n(resources / Math.max(0.001, e.jobSeconds))} resources/s` : '–'} |`,
      ...(e.bytes !== undefined
        ? [
            `| output (NDJSON, as downloaded) | ${mib(e.bytes)} MiB; ${n(e.bytes / Math.max(1, resources))} bytes a resource; ${mib(e.bytes / Math.max(1, e.files ?? 1))} MiB a file |`,
            `| lines downloaded | ${n(e.lines ?? 0)}${e.mismatch ? ` (**against the manifest's counts:** ${e.mismatch})` : ' (the manifest’s counts)'} |`,
            `| download, one file at a time | ${n(e.downloadSeconds ?? 0, 1)} s: ${n(e.bytes / 2 ** 20 / Math.max(0.001, e.downloadSeconds ?? 0), 1)} MiB/s, ${n(resources / Math.max(0.001, e.downloadSeconds ?? 0))} resources/s |`,
          ]
        : []),
    );
    if (e.failed) exportLines.push('', `**FAILED:** ${e.failed}.`);
  }
  const failed = paired.filter((p) => ratioOf(p) < RATIO_TARGET);
  return [
    '',
    `## FHIR R4${quick ? ' (quick)' : ''}`,
    '',
    `${new Date().toISOString()} — ${machine}; PostgreSQL on the same machine; one tenant of ${n(patients)} patients; the build of ${figures.build}.`,
    '',
    `**FHIR ÷ Cairn (throughput)**: one Cairn server (\`cairn serve --workers 2\`, job workers off) serving both APIs on the same data; ${CONNECTIONS} connections, ${seconds} s per run, a warm-up of each, FHIR and Cairn taking turns over ${ROUNDS} rounds (medians; the ratio is the median of the rounds' ratios). The same random sampled ids on both sides; the same surname prefixes (${PREFIX} letters) on both sides. Statements per request from pg_stat_statements, over the requests sent. Target ≥ ${RATIO_TARGET}.`,
    '',
    '| Scenario | API | request | req/s | p50 ms | p95 ms | statements / request | errors | FHIR ÷ Cairn |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Cairn has no surname-prefix filter: its closest is \`search\` (a substring of the names, phones, emails and identifiers, any case), whose page object also counts every match; FHIR's \`family\` is the start of the last name, any case, in id order, counted only with \`_summary=count\`. Over ${answers.prefixes} of the prefixes (medians): FHIR's page held ${n(answers.fhirPage)} of ${n(answers.fhirMatches)} matches, Cairn's ${n(answers.cairnPage)} of ${n(answers.cairnMatches)}.`,
    '',
    failed.length > 0 ? `**FAIL:** ${failed.map((p) => `${p.pair.name} (${ratioOf(p).toFixed(2)})`).join('; ')}.\n` : '',
    `**Bulk export** (\`GET …/fhir/R4/$export?_type=Patient\`, system level, \`Prefer: respond-async\`): a second server from the same build (\`cairn serve --workers 2\`, job workers on, the local file store), the first one stopped and nothing else running; the status URL polled every ${POLL_MS} ms until 200; every file then downloaded, one at a time, and the export deleted.`,
    '',
    ...exportLines,
    '',
    `Whole FHIR bench: ${n(figures.seconds)} s.`,
    '',
  ].join('\n');
}

standalone(import.meta.url, 'fhir', () => benchFhir(), children);
