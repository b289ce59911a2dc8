/**
 * `npm run bench [-- --quick] [-- --requests]`: Cairn's speed, as ratios measured in one run.
 *
 * It starts a throwaway PostgreSQL (or uses BENCH_DATABASE_URL), loads a small and a large tenant
 * with `cairn seed bulk`, runs `cairn serve --workers 2` from the build as users would, and two
 * bare servers beside it: the same-SQL baseline (Cairn's own SQL, nothing else) and the floor
 * (the least SQL that could answer). It drives each scenario with autocannon from a separate
 * process, the three servers taking turns, and counts the SQL statements each request sends
 * (pg_stat_statements). It prints and saves (bench/results/) req/s, p50/p95/p99, each worker's
 * memory (after start-up, idle after a warm-up, and its peak under load) with the heap settings
 * the workers run with, Cairn ÷ floor and Cairn ÷ same-SQL, statements per request, and the
 * growth of search and list latency from the small tenant to the large one, and where a worker's
 * time goes under get, search and create (bench/profile.ts: garbage collection, the statement, the
 * access record, authentication, validation and serialization, HTTP, socket writes, the
 * framework, the route). The measured Cairn
 * runs with job workers off (CAIRN_JOB_WORKERS=0, an API-only node), so its statements per request
 * are the request's own: with them on, their polling and the outbox relay each write wakes add
 * theirs (create patient 1.38 against 1.01); the events bench measures what job workers cost.
 * Then the files bench (bench/files.ts), the events bench (bench/events.ts: webhook delivery delay
 * and throughput, and patient create with the outbox against the build before it) and the
 * messages bench (bench/messages.ts: chat page 500 against page 1, emails through SMTP). On the
 * large tenant it walks the PATIENT and TASK exports to their end (bench/export.ts). Last, the
 * Citus bench (bench/citus.ts): two Cairn nodes on a Citus cluster against two on PostgreSQL; then the
 * access-log bench (bench/access-log.ts) on the large tenant: reads with the log on against off, its
 * size per 1,000 records, and its two questions over 10M records; and the FHIR bench (bench/fhir.ts)
 * on the same tenant: FHIR Patient read and search against Cairn's own, and the bulk $export's
 * resources per second; then the operating bench (bench/operating.ts) on a PostgreSQL of its own:
 * backup, restore and copy at the large size against pg_dump and pg_restore; last the identity
 * bench (bench/identity.ts): an app's sign-in, token issue and refresh against bare oidc-provider.
 * Absolute figures
 * depend on the machine; the ratios are what carry over.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import { benchAccessLog } from './access-log.ts';
import { benchCitus } from './citus.ts';
import { benchClient, load, log, median, quick, root, synchronousCommit, tunedPostgres, waitFor } from './common.ts';
import { cpuBetween, cpuSnapshot, postmasterOf } from './cpu.ts';
import { benchEvents } from './events.ts';
import { benchExportWalks } from './export.ts';
import { benchFhir } from './fhir.ts';
import { benchFiles } from './files.ts';
import { benchIdentity } from './identity.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { describeHeapSettings, heapSettings, peakMemory, rssMb, workerPids, workersRss } from './memory.ts';
import { benchMessages } from './messages.ts';
import { benchOperating } from './operating.ts';
import { type Breakdown, breakdownTable, profileScenario } from './profile.ts';

/**
 * `--requests` (`npm run bench:requests`): the request scenarios, the export walks and the files
 * (what latest.md holds) and nothing after; each later part has its own `npm run bench:<part>`.
 */
const requestsOnly = process.argv.includes('--requests');
const sizes = { small: 10_000, large: quick ? 100_000 : 1_000_000 };
const seconds = quick ? 3 : 10;
const connections = 10;
const clientKey = 'bench-client';
const clientSecret = 'bench-secret-0123456789';
const children: ChildProcess[] = [];

function cairn(args: string[], env: NodeJS.ProcessEnv) {
  execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

function startProcess(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

type Target = 'cairn' | 'baseline' | 'floor';

/** A server's memory over the run: RSS in MB per worker (by pid), and the heap settings its workers run with. */
interface ServerMemory {
  heap: { flags: string[]; nodeOptions: string[] };
  primaryMb: number | null;
  /** After start-up, before any request. */
  started: Map<number, number>;
  /** After the warm-up (every scenario kind once, briefly) and a pause, before the load. */
  idle: Map<number, number>;
  /** The highest under load, token issue apart (scrypt's own memory by design). */
  peak: Map<number, number>;
  peakTokenIssue: Map<number, number>;
}

interface Scenario {
  name: string;
  target: Target;
  tenant: 'small' | 'large';
  plan: LoadPlan;
}

interface Measured extends Scenario {
  result: LoadResult;
  peakMb: number;
  /** Each round's figures, when the servers took turns. */
  rounds: LoadResult[];
  /** SQL statements sent per request (pg_stat_statements), the median over the rounds. */
  statements: number | null;
  /**
   * CPU µs per request sent, medians over the rounds (/proc around each run): the server's own
   * processes (primary and workers), and PostgreSQL's (backends, WAL writer and the rest; null when
   * the database is on another machine).
   */
  cpu: { server: number; postgres: number | null };
}

/**
 * Counts the statements the database runs while `during` runs: pg_stat_statements is reset
 * first and read after. Without the extension (an outside BENCH_DATABASE_URL), null.
 */
async function countStatements<T>(url: string, during: () => Promise<T>): Promise<{ value: T; statements: number | null }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const available = await db.query('SELECT pg_stat_statements_reset()').then(
      () => true,
      () => false,
    );
    const value = await during();
    if (!available) return { value, statements: null };
    // Everything but this client's own reset and read.
    const { rows } = await db.query(
      `SELECT coalesce(sum(calls), 0)::int AS calls FROM pg_stat_statements
       WHERE query NOT ILIKE '%pg_stat_statements%'`,
    );
    return { value, statements: rows[0].calls };
  } finally {
    await db.end();
  }
}

/** Rounds per paired scenario (Cairn and baseline alternating). */
const ROUNDS = quick ? 2 : 3;

function medianResult(results: LoadResult[]): LoadResult {
  const pick = (key: keyof LoadResult) => median(results.map((result) => result[key]));
  return {
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    sent: results.reduce((sum, result) => sum + result.sent, 0),
    rps: pick('rps'),
    p50: pick('p50'),
    p95: pick('p95'),
    p99: pick('p99'),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
  };
}

async function main() {
  const started = Date.now();
  log(`== build`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });

  let cluster: Cluster | undefined;
  let databaseUrl = process.env.BENCH_DATABASE_URL ?? '';
  if (!databaseUrl) {
    log('== throwaway PostgreSQL');
    cluster = await startCluster({
      ...tunedPostgres(),
      // Counts the statements each request sends.
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track_utility': 'on',
    });
    databaseUrl = cluster.url('postgres');
  }
  const env = { ...process.env, DATABASE_URL: databaseUrl, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
  try {
    log('== load data');
    cairn(['migrate'], env);
    if (cluster) {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await db.end();
    }
    const tenants = { small: 'bench-small', large: 'bench-large' };
    const seedTimes: Record<string, number> = {};
    for (const [size, tenant] of Object.entries(tenants) as ['small' | 'large', string][]) {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      const exists = (await db.query('SELECT 1 FROM tenants WHERE name = $1', [tenant])).rowCount;
      await db.end();
      if (exists) continue;
      const begin = Date.now();
      const n = String(sizes[size]);
      cairn(['seed', 'bulk', '--tenant', tenant, '--patients', n, '--tasks', String(sizes[size] * 2), '--events', n], env);
      seedTimes[size] = (Date.now() - begin) / 1000;
      cairn(benchClient(tenant, `${clientKey}-${size}`, clientSecret), env);
    }

    const samples = await sampleData(databaseUrl, tenants);
    const cairnPort = await freePort();
    const baselinePort = await freePort();
    const floorPort = await freePort();
    log('== start servers');
    const cairnEnv = {
      ...env,
      // The token scenario measures issuing, not the 100-per-5-minutes limit.
      CAIRN_TOKEN_LIMIT: '100000000',
      // An API-only node: statements per request are the request's own, not the job workers'.
      CAIRN_JOB_WORKERS: '0',
    };
    const server = startProcess(['dist/cli.js', 'serve', '--workers', '2'], { ...cairnEnv, PORT: String(cairnPort) });
    const bareEnv = {
      ...env,
      WORKERS: '2',
      BASELINE_TENANTS: Object.values(tenants)
        .map((tenant) => `${tenant}/sandbox`)
        .join(','),
    };
    const baseline = startProcess(['--import', 'tsx', 'bench/baseline.ts'], { ...bareEnv, PORT: String(baselinePort) });
    const floor = startProcess(['--import', 'tsx', 'bench/floor.ts'], { ...bareEnv, PORT: String(floorPort) });
    await waitFor(`http://127.0.0.1:${cairnPort}/health/ready`);
    await waitFor(`http://127.0.0.1:${baselinePort}/none`);
    await waitFor(`http://127.0.0.1:${floorPort}/none`);
    const servers = { cairn: server, baseline, floor };
    const postmaster = await postmasterOf(databaseUrl);
    // Every worker listening, then a moment for start-up's garbage to settle.
    for (const child of Object.values(servers)) {
      for (let attempt = 0; attempt < 100 && workerPids(child).length < 2; attempt++) await sleep(100);
    }
    await sleep(2000);
    const memory = {} as Record<Target, ServerMemory>;
    for (const [target, child] of Object.entries(servers) as [Target, ChildProcess][]) {
      memory[target] = {
        heap: heapSettings(workerPids(child)[0] ?? child.pid),
        primaryMb: null,
        started: workersRss(child),
        idle: new Map(),
        peak: new Map(),
        peakTokenIssue: new Map(),
      };
    }
    const tokens: Record<string, string> = {};
    for (const size of ['small', 'large'] as const) {
      const response = await fetch(`http://127.0.0.1:${cairnPort}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiClient: `${clientKey}-${size}`, secret: clientSecret }),
      });
      tokens[size] = ((await response.json()) as { token: string }).token;
    }

    const scenarios = buildScenarios({
      ports: { cairn: cairnPort, baseline: baselinePort, floor: floorPort },
      tenants,
      tokens,
      samples,
    });
    const measured: Measured[] = [];
    // Idle: after one brief run of each kind of request the issue compares (get, search, create),
    // so the routes are compiled and the caches filled, and a pause for the garbage to settle.
    log('== warm-up, idle memory');
    for (const name of ['get patient by id', 'patient search', 'create patient']) {
      for (const member of scenarios.filter((s) => s.name === name && s.tenant === 'large')) {
        await load({ ...member.plan, seconds: 1 });
      }
    }
    await sleep(3000);
    for (const [target, child] of Object.entries(servers) as [Target, ChildProcess][]) {
      memory[target].idle = workersRss(child);
      memory[target].primaryMb = workerPids(child).length > 0 ? rssMb(child.pid!) : null;
    }
    for (const scenario of scenarios) {
      if (measured.some((m) => m.name === scenario.name && m.tenant === scenario.tenant)) continue;
      const group = scenarios.filter((s) => s.name === scenario.name && s.tenant === scenario.tenant);
      // A short warm-up fills caches and lets the JIT settle before anything is measured.
      for (const member of group) await load({ ...member.plan, seconds: quick ? 1 : 2 });
      // The servers take turns, round by round, so a passing disturbance of this shared machine
      // falls on all rather than on one; the medians of the rounds are kept.
      const rounds: { result: LoadResult; peakMb: number; statements: number | null; cpu: Measured['cpu'] }[][] = group.map(
        () => [],
      );
      for (let round = 0; round < (group.length > 1 ? ROUNDS : 1); round++) {
        for (const [position, member] of group.entries()) {
          const child = servers[member.target];
          const { value, statements } = await countStatements(databaseUrl, async () => {
            const before = cpuSnapshot(child, postmaster);
            const ran = await peakMemory(child, () => load(member.plan));
            return { ran, spent: cpuBetween(before, cpuSnapshot(child, postmaster), postmaster !== null) };
          });
          const { ran, spent } = value;
          const perRequest = (s: number) => (s * 1e6) / Math.max(1, ran.value.sent);
          const postgres = spent.backends === null ? null : perRequest(spent.backends + spent.walWriter! + spent.background!);
          const cpu = { server: perRequest(spent.cairn!), postgres };
          rounds[position]!.push({ result: ran.value, peakMb: ran.peakMb, statements, cpu });
          const peaks = memory[member.target][member.name === 'token issue' ? 'peakTokenIssue' : 'peak'];
          for (const [pid, mb] of ran.byWorker) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, mb));
        }
      }
      for (const [position, member] of group.entries()) {
        const runs = rounds[position]!;
        const result = medianResult(runs.map((run) => run.result));
        const perRequest = runs.flatMap((run) =>
          run.statements === null ? [] : [run.statements / Math.max(1, run.result.sent)],
        );
        measured.push({
          ...member,
          result,
          peakMb: Math.max(...runs.map((run) => run.peakMb)),
          rounds: runs.map((run) => run.result),
          statements: perRequest.length > 0 ? median(perRequest) : null,
          cpu: {
            server: median(runs.map((run) => run.cpu.server)),
            postgres: runs[0]!.cpu.postgres === null ? null : median(runs.map((run) => run.cpu.postgres!)),
          },
        });
        log(
          `${member.name.padEnd(28)} ${member.target.padEnd(8)} ${member.tenant.padEnd(5)} ${result.rps.toFixed(0).padStart(6)} req/s  p95 ${result.p95.toFixed(1)} ms  ${measured.at(-1)!.statements?.toFixed(2) ?? '?'} stmt/req${result.non2xx ? `  (${result.non2xx} non-2xx)` : ''}`,
        );
      }
    }
    log("== where a worker's time goes");
    const profiled: { name: string; breakdown: Breakdown }[] = [];
    for (const name of PROFILED) {
      const scenario = scenarios.find((s) => s.name === name && s.target === 'cairn' && s.tenant === 'large');
      if (!scenario) continue;
      profiled.push({ name, breakdown: await profileScenario(cairnEnv, await freePort(), scenario.plan) });
    }
    const report = summarize(measured, memory, seedTimes, (Date.now() - started) / 1000);
    report.text += profiledSection(profiled);
    // Saved as each part ends: a long run stopped part way keeps what it measured.
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const save = () => {
      fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
      fs.writeFileSync(
        path.join(root, `bench/results/${stamp}${quick ? '-quick' : ''}.json`),
        JSON.stringify(report.json, null, 2),
      );
      fs.writeFileSync(path.join(root, `bench/results/latest${quick ? '-quick' : ''}.md`), report.text);
    };
    save();
    report.text += await benchExportWalks(`http://127.0.0.1:${cairnPort}/${tenants.large}/sandbox`, tokens.large!);
    log('== files');
    report.text += await benchFiles();
    save();
    // After the servers above are gone: the events bench runs its own cluster and servers.
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    if (requestsOnly) return void process.stdout.write(report.text);
    report.text += await benchEvents();
    report.text += await benchMessages();
    save();
    report.text += await benchCitus();
    save();
    // Last, on the run's own large tenant (its servers gone): the access log on against off, its
    // size, and its two questions over 10M records.
    report.text += await benchAccessLog({
      databaseUrl,
      tenant: tenants.large,
      clientKey: `${clientKey}-large`,
      clientSecret,
    });
    save();
    // Then, on the same tenant (the access log's servers gone): FHIR read and search against
    // Cairn's own, and the bulk $export's throughput.
    report.text += await benchFhir({
      databaseUrl,
      tenant: tenants.large,
      clientKey: `${clientKey}-large`,
      clientSecret,
    });
    save();
    // Last, on a PostgreSQL of its own (a backup and a copy take the whole installation): backup,
    // restore and copy at the large size, against pg_dump and pg_restore.
    report.text += await benchOperating();
    save();
    // And an app's sign-in (authorize, token issue, refresh) against bare oidc-provider, on a
    // PostgreSQL of its own.
    report.text += await benchIdentity();
    process.stdout.write(report.text);
    save();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    cluster?.stop();
  }
}

interface Samples {
  patientIds: Record<string, string[]>;
  /** Patients with encounters, for the full-encounter list. */
  encounterPatients: Record<string, string[]>;
  searchTerms: Record<string, string[]>;
  coordinators: Record<string, string[]>;
  taskIds: Record<string, string[]>;
}

/** Real ids, names and coordinators from the loaded data, so every request hits something. */
async function sampleData(url: string, tenants: Record<'small' | 'large', string>): Promise<Samples> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const samples: Samples = { patientIds: {}, encounterPatients: {}, searchTerms: {}, coordinators: {}, taskIds: {} };
  for (const [size, tenant] of Object.entries(tenants)) {
    const { id: tenantId } = (await db.query('SELECT id FROM tenants WHERE name = $1', [tenant])).rows[0];
    const patients = await db.query(
      'SELECT id, first_name, last_name, phone FROM patients TABLESAMPLE SYSTEM (5) WHERE tenant_id = $1 LIMIT 4000',
      [tenantId],
    );
    samples.patientIds[size] = patients.rows.map((row) => row.id);
    // What a coordinator types: a surname, the start of one, a full name, or phone digits.
    samples.searchTerms[size] = patients.rows.slice(0, 400).map((row, index) => {
      switch (index % 4) {
        case 0:
          return row.last_name;
        case 1:
          return row.last_name.slice(0, 5);
        case 2:
          return `${row.first_name} ${row.last_name}`;
        default:
          return row.phone.slice(-7);
      }
    });
    samples.coordinators[size] = (await db.query('SELECT id FROM users WHERE tenant_id = $1 LIMIT 200', [tenantId])).rows.map(
      (row) => row.id,
    );
    samples.encounterPatients[size] = (
      await db.query(
        `SELECT patient_id FROM cdt_records TABLESAMPLE SYSTEM (10) WHERE tenant_id = $1 AND cdt_name = '__encounter__' LIMIT 2000`,
        [tenantId],
      )
    ).rows.map((row) => row.patient_id);
    samples.taskIds[size] = (
      await db.query('SELECT id FROM tasks TABLESAMPLE SYSTEM (5) WHERE tenant_id = $1 LIMIT 2000', [tenantId])
    ).rows.map((row) => row.id);
  }
  await db.end();
  return samples;
}

function buildScenarios(context: {
  ports: Record<Target, number>;
  tenants: Record<'small' | 'large', string>;
  tokens: Record<string, string>;
  samples: Samples;
}): Scenario[] {
  const { samples } = context;
  const scenarios: Scenario[] = [];
  const plan = (
    target: Target,
    size: 'small' | 'large',
    method: LoadPlan['method'],
    paths: string[],
    bodies?: string[],
  ): LoadPlan => ({
    url: `http://127.0.0.1:${context.ports[target]}`,
    method,
    headers: target === 'cairn' ? { authorization: `Bearer ${context.tokens[size]}` } : {},
    paths: paths.map((p) => `/${context.tenants[size]}/sandbox${p}`),
    ...(bodies ? { bodies } : {}),
    connections,
    seconds,
  });
  const both = (name: string, size: 'small' | 'large', method: LoadPlan['method'], paths: string[], bodies?: string[]) => {
    for (const target of ['cairn', 'baseline', 'floor'] as const)
      scenarios.push({ name, target, tenant: size, plan: plan(target, size, method, paths, bodies) });
  };
  const encode = encodeURIComponent;

  scenarios.push({
    name: 'token issue',
    target: 'cairn',
    tenant: 'small',
    plan: {
      ...plan('cairn', 'small', 'POST', ['']),
      paths: ['/auth/token'],
      headers: {},
      bodies: [JSON.stringify({ apiClient: `${clientKey}-small`, secret: clientSecret })],
    },
  });
  both(
    'get patient by id',
    'large',
    'GET',
    samples.patientIds.large!.map((id) => `/patients/${id}`),
  );
  for (const size of ['small', 'large'] as const) {
    both(
      'patient search',
      size,
      'GET',
      samples.searchTerms[size]!.map((term) => `/patients?search=${encode(term)}`),
    );
    both(
      'patient list, filter + sort',
      size,
      'GET',
      samples.coordinators[size]!.map((id) => `/patients?careTeamMemberId=${id}&sort=lastName,asc`),
    );
  }
  // A coordinator's week (the events are spread over the year before and after the seed), and a
  // patient's full encounters; both with the same data per coordinator and patient at any scale.
  const weekStart = (i: number) => new Date(Date.now() - (i % 50) * 7 * 86_400_000);
  for (const size of ['small', 'large'] as const) {
    scenarios.push({
      name: 'calendar week of a host',
      target: 'cairn',
      tenant: size,
      plan: plan(
        'cairn',
        size,
        'GET',
        samples.coordinators[size]!.map((id, i) => {
          const from = weekStart(i);
          const to = new Date(from.getTime() + 7 * 86_400_000);
          return `/calendar/events?participantIds=${id}&from=${from.toISOString()}&to=${to.toISOString()}&size=50`;
        }),
      ),
    });
    scenarios.push({
      name: 'full encounters of a patient',
      target: 'cairn',
      tenant: size,
      plan: plan(
        'cairn',
        size,
        'GET',
        samples.encounterPatients[size]!.map((id) => `/patients/${id}/full-encounters`),
      ),
    });
  }
  const bodies = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({
      firstName: `Bench${i}`,
      lastName: `Create${i}`,
      email: `bench${i}@example.org`,
      phone: '+14155552671',
      birthDate: '1980-05-06',
    }),
  );
  both('create patient', 'large', 'POST', ['/patients'], bodies);
  // The same writes as the typed client sends them: each with its own key (claimed, then answered).
  scenarios.push({
    name: 'create patient, Idempotency-Key',
    target: 'cairn',
    tenant: 'large',
    plan: { ...plan('cairn', 'large', 'POST', ['/patients'], bodies), idempotencyKeys: true },
  });

  // Bulk edits are an administrator's, not ten racing at once: two connections, disjoint rows.
  const cairnOnly = (name: string, size: 'small' | 'large', method: LoadPlan['method'], paths: string[], bodies?: string[]) =>
    scenarios.push({
      name,
      target: 'cairn',
      tenant: size,
      plan: { ...plan('cairn', size, method, paths, bodies), connections: 2 },
    });
  const patientIds = samples.patientIds.large!;
  const windows = Array.from({ length: Math.max(1, Math.floor(patientIds.length / 1000)) }, (_, i) =>
    patientIds.slice(i * 1000, i * 1000 + 1000),
  );
  cairnOnly(
    'bulk care-team PATCH (1000)',
    'large',
    'PATCH',
    ['/patients'],
    windows.map((ids, i) =>
      JSON.stringify({ ids, careTeamAdditions: [samples.coordinators.large![i % samples.coordinators.large!.length]] }),
    ),
  );
  scenarios.push({
    name: 'task search, filters',
    target: 'cairn',
    tenant: 'large',
    plan: plan(
      'cairn',
      'large',
      'GET',
      samples.coordinators.large!.map((id) => `/tasks?assigneeIds=${id}&statuses=TODO,IN_PROGRESS&sort=dueDate,asc`),
    ),
  });
  const statuses = ['TODO', 'IN_PROGRESS', 'COMPLETED', 'CANCELED'];
  cairnOnly(
    'bulk task status (50)',
    'large',
    'PATCH',
    ['/tasks'],
    Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({ taskIds: samples.taskIds.large!.slice(i * 50, i * 50 + 50), status: statuses[i % statuses.length] }),
    ),
  );
  return scenarios;
}

/** Targets, as ratios of Cairn's throughput to the floor's (issue 10). */
const floorTargets: Record<string, number> = {
  'get patient by id': 0.7,
  'create patient': 0.6,
  'patient search': 0.8,
  'patient list, filter + sort': 0.8,
};
const GROWTH_TARGET = 1.5;
/** A worker's peak RSS under the bench's load (the issue "Memory back where it was"). */
const MEMORY_TARGET_MB = 250;

/** Each server's memory as a table: a row per worker, in MB. */
function memoryTable(memory: Record<Target, ServerMemory>): string[] {
  const mb = (value: number | null | undefined) => (value === null || value === undefined ? '–' : value.toFixed(0));
  const rows: string[] = [];
  for (const [target, server] of Object.entries(memory) as [Target, ServerMemory][]) {
    const pids = [...new Set([...server.started.keys(), ...server.idle.keys(), ...server.peak.keys()])].sort((a, b) => a - b);
    for (const [index, pid] of pids.entries()) {
      rows.push(
        `| ${index === 0 ? (target === 'baseline' ? 'same SQL' : target) : ''} | ${index === 0 ? describeHeapSettings(server.heap) : ''} | ${index === 0 ? mb(server.primaryMb) : ''} | ${index + 1} | ${mb(server.started.get(pid))} | ${mb(server.idle.get(pid))} | ${mb(server.peak.get(pid))} | ${mb(server.peakTokenIssue.get(pid))} |`,
      );
    }
  }
  return [
    '| Server | heap settings of its workers | primary, idle | worker | after start-up | idle, after warm-up | peak under load (token issue apart) | peak in token issue |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

/** The scenarios whose worker time is broken down (bench/profile.ts), on the large tenant. */
const PROFILED = ['get patient by id', 'patient search', 'create patient'];

function profiledSection(rows: { name: string; breakdown: Breakdown }[]): string {
  if (rows.length === 0) return '';
  return [
    '',
    "**Where a worker's time goes** (bench/profile.ts): one `cairn serve` worker of its own under V8's sampling profiler, each scenario's load at the same connections on the large tenant; idle is the share of the window it waited, each part a share of its busy time.",
    '',
    ...breakdownTable(rows),
    '',
  ].join('\n');
}

function summarize(
  measured: Measured[],
  memory: Record<Target, ServerMemory>,
  seedTimes: Record<string, number>,
  totalSeconds: number,
) {
  const find = (name: string, target: Target, tenant: string) =>
    measured.find((m) => m.name === name && m.target === target && m.tenant === tenant);
  const rows = measured.map(
    (m) =>
      `| ${m.name} | ${m.target === 'baseline' ? 'same SQL' : m.target} | ${sizes[m.tenant].toLocaleString('en-US')} | ${m.result.rps.toFixed(0)} | ${m.result.p50.toFixed(1)} | ${m.result.p95.toFixed(1)} | ${m.result.p99.toFixed(1)} | ${m.statements?.toFixed(2) ?? '–'} | ${m.cpu.server.toFixed(0)} | ${m.cpu.postgres?.toFixed(0) ?? '–'} | ${m.peakMb.toFixed(0)} | ${m.result.non2xx + m.result.errors} |`,
  );
  // The median of the rounds' ratios: each compares runs taken moments apart.
  const ratio = (m: Measured, against: Target, target: number) => {
    const base = find(m.name, against, m.tenant);
    if (!base) return undefined;
    const value = median(m.rounds.map((round, index) => round.rps / base.rounds[index]!.rps));
    // Targets hold at the large tenant; the small one is shown for growth.
    const judged = m.tenant === 'large' && target > 0;
    return {
      name: `${m.name} (${sizes[m.tenant].toLocaleString('en-US')})`,
      value,
      target: judged ? target : null,
      ok: !judged || value >= target,
    };
  };
  const paired = measured.filter((m) => m.target === 'cairn' && find(m.name, 'floor', m.tenant));
  const floor = paired.map((m) => ratio(m, 'floor', floorTargets[m.name] ?? 0)!);
  const overhead = paired.map((m) => ratio(m, 'baseline', 0)!);
  // What the framework adds to a request in the server's own processes, and what its SQL costs PostgreSQL.
  const cpu = paired.map((m) => {
    const same = find(m.name, 'baseline', m.tenant)!;
    const bare = find(m.name, 'floor', m.tenant)!;
    return {
      name: `${m.name} (${sizes[m.tenant].toLocaleString('en-US')})`,
      server: { cairn: m.cpu.server, sameSql: same.cpu.server, floor: bare.cpu.server },
      postgres: { cairn: m.cpu.postgres, sameSql: same.cpu.postgres, floor: bare.cpu.postgres },
    };
  });
  const µs = (value: number | null) => (value === null ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: 0 }));
  const signed = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : '−'}${µs(Math.abs(value))}`);
  const cpuRows = cpu.map(
    (c) =>
      `| ${c.name} | ${µs(c.server.cairn)} | ${µs(c.server.sameSql)} | ${µs(c.server.floor)} | ${signed(c.server.cairn - c.server.sameSql)} | ${µs(c.postgres.cairn)} | ${µs(c.postgres.sameSql)} | ${µs(c.postgres.floor)} |`,
  );
  const statements = measured
    .filter((m) => m.statements !== null)
    .map((m) => ({ name: m.name, server: m.target, patients: sizes[m.tenant], perRequest: Number(m.statements!.toFixed(2)) }));
  const growth = ['patient search', 'patient list, filter + sort', 'calendar week of a host', 'full encounters of a patient'].map(
    (name) => {
      const small = find(name, 'cairn', 'small')!;
      const large = find(name, 'cairn', 'large')!;
      const value = large.result.p95 / small.result.p95;
      const grew = (part: 'server' | 'postgres') => {
        const [from, to] = [small.cpu[part], large.cpu[part]];
        return from && to ? `×${(to / from).toFixed(2)} (${µs(from)} → ${µs(to)} µs)` : '–';
      };
      // A miss says whose work grew with the tenant: the statement's (PostgreSQL) or the server's.
      const why = `CPU a request from ${sizes.small.toLocaleString('en-US')} to ${sizes.large.toLocaleString('en-US')} patients: PostgreSQL ${grew('postgres')}, Cairn's server ${grew('server')}`;
      return { name, value, target: GROWTH_TARGET, ok: value <= GROWTH_TARGET, why };
    },
  );
  const keyed = find('create patient, Idempotency-Key', 'cairn', 'large');
  const unkeyed = find('create patient', 'cairn', 'large');
  const idempotency =
    keyed && unkeyed
      ? {
          value: keyed.result.rps / unkeyed.result.rps,
          statements: [unkeyed.statements, keyed.statements].map((n) => n?.toFixed(2) ?? '–'),
        }
      : undefined;
  const cairnRuns = measured.filter((m) => m.target === 'cairn');
  const peak = Math.max(...cairnRuns.map((m) => m.peakMb));
  // Token issue is scrypt's own memory by design (32 MiB per check); every other scenario is held to the target.
  const peakOther = Math.max(...cairnRuns.filter((m) => m.name !== 'token issue').map((m) => m.peakMb));
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const line = (r: { name: string; value: number; target: number | null; ok: boolean }) =>
    `- ${r.name}: ${r.value.toFixed(2)}${r.target ? ` (target ≥ ${r.target}: ${r.ok ? 'met' : 'MISSED'})` : ''}`;
  // A target missed says why, from the same run's CPU a request: whose processes spent what beyond the floor's.
  const floorLine = (r: (typeof floor)[number], index: number) => {
    const c = cpu[index]!;
    if (r.ok || r.target === null) return line(r);
    const database =
      c.postgres.cairn === null || c.postgres.floor === null
        ? ''
        : `; PostgreSQL ${µs(c.postgres.cairn)} against the floor's ${µs(c.postgres.floor)} (${signed(c.postgres.cairn - c.postgres.floor)}: the relations and the access record the floor neither reads nor writes)`;
    return `${line(r)}. Why: a request cost Cairn's server ${µs(c.server.cairn)} µs of CPU against the floor's ${µs(c.server.floor)} (${signed(c.server.cairn - c.server.floor)}: the framework ${signed(c.server.cairn - c.server.sameSql)} over the same SQL, the same SQL's rows made objects, views and JSON ${signed(c.server.sameSql - c.server.floor)} over the floor's JSON passed through)${database}; with both cores busy, throughput follows the CPU a request`;
  };
  const text = [
    `# Cairn benchmark${quick ? ' (quick)' : ''}`,
    '',
    `${new Date().toISOString()} — ${machine}; PostgreSQL on the same machine (synchronous_commit ${synchronousCommit}); ${connections} connections (bulk edits 2), ${seconds} s per run; Cairn, the same-SQL baseline and the floor each run 2 workers and take turns over ${ROUNDS} rounds (medians shown). Statements per request from pg_stat_statements, over the requests sent (those still in flight as a run's window closes run their statements too), with Cairn's job workers off (CAIRN_JOB_WORKERS=0, an API-only node), so each is the request's own: no job polling or outbox relay counted; each worker's read caches (tenant, instance, the caller's access) reload every CAIRN_CACHE_TTL_MS (60 s; a change clears them on every node).`,
    '',
    '| Scenario | Server | Patients | req/s | p50 ms | p95 ms | p99 ms | statements / request | server CPU µs / request | PostgreSQL CPU µs / request | peak RSS MB (worker) | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    "**CPU a request, in the server's processes and in PostgreSQL's** (µs, medians of the rounds; read from /proc around each run, over the requests sent): the machine's 2 cores are shared by the load, the server and PostgreSQL, so req/s moves with the whole machine's load from round to round, while CPU per request says what each request cost. Cairn − same SQL is the framework's own cost: routing, authentication, validation, the access record's part in the server, serialization, logging; the same SQL's PostgreSQL column is the statement alone, Cairn's adds the access record. PostgreSQL's CPU a request also holds each backend's wake-up when it waits between statements, so the same statement costs it more at a lower rate (pgbench, a read by id with its record, 100,000 patients: 242 µs flat out, 339 at 2,800 a second): read its columns beside the req/s.",
    '',
    '| Scenario | server: Cairn | server: same SQL | server: floor | server: Cairn − same SQL | PostgreSQL: Cairn | PostgreSQL: same SQL | PostgreSQL: floor |',
    '|---|---|---|---|---|---|---|---|',
    ...cpuRows,
    '',
    '**Cairn ÷ floor (throughput)**: the floor does the least SQL that could answer, and nothing else',
    '',
    ...floor.map(floorLine),
    '',
    "**Cairn ÷ same SQL (throughput)**: the baseline runs Cairn's own SQL without the framework",
    '',
    ...overhead.map(line),
    '',
    `**Growth, p95(${sizes.large.toLocaleString('en-US')}) ÷ p95(${sizes.small.toLocaleString('en-US')}) patients (and as many events)** (target ≤ ${GROWTH_TARGET})`,
    '',
    ...growth.map((g) => `- ${g.name}: ${g.value.toFixed(2)} (${g.ok ? 'met' : `MISSED. Why: ${g.why}`})`),
    '',
    idempotency
      ? `**Idempotency-Key:** create patient with a fresh key ÷ without: ${idempotency.value.toFixed(2)} (statements per request ${idempotency.statements[1]} against ${idempotency.statements[0]}).\n`
      : '',
    `**Peak worker memory:** ${peakOther.toFixed(0)} MB outside token issue (target ≤ ${MEMORY_TARGET_MB}: ${peakOther <= MEMORY_TARGET_MB ? 'met' : 'MISSED'}); ${peak.toFixed(0)} MB with it.`,
    '',
    `**Memory (RSS, MB, per process)**: after start-up (before any request); idle after a warm-up (1 s each of get, search and create) and 3 s at rest; the highest while the scenarios ran, sampled every 300 ms. Heap settings from each server's first worker (its command line and NODE_OPTIONS).`,
    '',
    ...memoryTable(memory),
    '',
    `Seeding: ${
      Object.entries(seedTimes)
        .map(
          ([size, s]) =>
            `${sizes[size as 'small' | 'large'].toLocaleString('en-US')} patients + ${(2 * sizes[size as 'small' | 'large']).toLocaleString('en-US')} tasks + ${sizes[size as 'small' | 'large'].toLocaleString('en-US')} events in ${s.toFixed(0)} s`,
        )
        .join('; ') || 'reused'
    }. Whole run: ${totalSeconds.toFixed(0)} s.`,
    '',
  ].join('\n');
  const figures = measured.map((m) => ({
    name: m.name,
    target: m.target,
    patients: sizes[m.tenant],
    ...m.result,
    statementsPerRequest: m.statements,
    cpuPerRequest: m.cpu,
    peakMb: m.peakMb,
  }));
  return {
    text,
    json: {
      quick,
      machine,
      sizes,
      seconds,
      connections,
      figures,
      floor,
      overhead,
      cpuPerRequest: cpu,
      statements,
      growth,
      idempotency,
      peakMb: peak,
      peakMbOutsideTokenIssue: peakOther,
      statementsCounted: 'Cairn with job workers off (CAIRN_JOB_WORKERS=0)',
      memory: Object.fromEntries(
        (Object.entries(memory) as [Target, ServerMemory][]).map(([target, server]) => [
          target,
          {
            heapFlags: server.heap.flags,
            nodeOptionsHeapFlags: server.heap.nodeOptions,
            primaryIdleMb: server.primaryMb,
            workers: [...server.idle.keys()].map((pid) => ({
              pid,
              startedMb: server.started.get(pid) ?? null,
              idleMb: server.idle.get(pid) ?? null,
              peakMb: server.peak.get(pid) ?? null,
              peakTokenIssueMb: server.peakTokenIssue.get(pid) ?? null,
            })),
          },
        ]),
      ),
      seedTimes,
    },
  };
}

main().catch((error: unknown) => {
  console.error(error);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
