/**
 * `npm run bench [-- --quick]`: Cairn's speed, as ratios measured in one run.
 *
 * It starts a throwaway PostgreSQL (or uses BENCH_DATABASE_URL), loads a small and a large tenant
 * with `cairn seed bulk`, runs `cairn serve --workers 2` from the build as users would, and a bare
 * baseline (same SQL, nothing else) beside it, then drives each scenario with autocannon from a
 * separate process. It prints and saves (bench/results/) req/s, p50/p95/p99 and the servers' peak
 * memory, Cairn ÷ baseline, and the growth of search and list latency from the small tenant to
 * the large one. Absolute figures depend on the machine; the ratios are what carry over.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import type { LoadPlan, LoadResult } from './load.ts';

const quick = process.argv.includes('--quick');
const sizes = { small: 10_000, large: quick ? 100_000 : 1_000_000 };
const seconds = quick ? 3 : 10;
const connections = 10;
const clientKey = 'bench-client';
const clientSecret = 'bench-secret-0123456789';
const root = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = [];

function log(message: string) {
  process.stderr.write(`${message}\n`);
}

function cairn(args: string[], env: NodeJS.ProcessEnv) {
  execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function waitFor(url: string) {
  for (let attempt = 0; attempt < 240; attempt++) {
    const ok = await fetch(url).then(
      (response) => response.status < 500,
      () => false,
    );
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${url} did not come up`);
}

function startProcess(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

/** Peak resident memory of a process tree (a primary and its workers), sampled while `during` runs. */
async function peakMemory<T>(
  primary: ChildProcess,
  during: () => Promise<T>,
): Promise<{ value: T; peakMb: number; workers: number }> {
  let peakMb = 0;
  let workers = 0;
  const sample = () => {
    try {
      const pids = execFileSync('pgrep', ['-P', String(primary.pid)], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
      workers = pids.length;
      for (const pid of pids) {
        const rssKb = Number(execFileSync('ps', ['-o', 'rss=', '-p', pid], { encoding: 'utf8' }).trim());
        peakMb = Math.max(peakMb, rssKb / 1024);
      }
    } catch {}
  };
  const timer = setInterval(sample, 300);
  try {
    const value = await during();
    sample();
    return { value, peakMb, workers };
  } finally {
    clearInterval(timer);
  }
}

async function load(plan: LoadPlan): Promise<LoadResult> {
  // Plans list thousands of paths: too long for a command line, so they travel in a file.
  const planFile = path.join(os.tmpdir(), `cairn-bench-plan-${process.pid}.json`);
  fs.writeFileSync(planFile, JSON.stringify(plan));
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/load.ts', planFile], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`load exited ${code}`))));
  });
  return JSON.parse(output) as LoadResult;
}

interface Scenario {
  name: string;
  target: 'cairn' | 'baseline';
  tenant: 'small' | 'large';
  plan: LoadPlan;
}

interface Measured extends Scenario {
  result: LoadResult;
  peakMb: number;
  /** Each round's figures, when Cairn and the baseline took turns. */
  rounds: LoadResult[];
}

/** Rounds per paired scenario (Cairn and baseline alternating). */
const ROUNDS = quick ? 2 : 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function medianResult(results: LoadResult[]): LoadResult {
  const pick = (key: keyof LoadResult) => median(results.map((result) => result[key]));
  return {
    requests: results.reduce((sum, result) => sum + result.requests, 0),
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
    // Commits do not wait for the disk: the bench measures the server, not this machine's fsync.
    // Tuned by the usual rules for a dedicated server: a quarter of memory for shared buffers
    // (at most 8 GB), most of the rest counted as OS cache, SSD-like random reads.
    const memoryMb = Math.floor(os.totalmem() / 2 ** 20);
    cluster = await startCluster({
      shared_buffers: `${Math.min(8192, Math.floor(memoryMb / 4))}MB`,
      effective_cache_size: `${Math.floor((memoryMb * 3) / 4)}MB`,
      random_page_cost: '1.1',
      synchronous_commit: 'off',
      max_connections: '100',
    });
    databaseUrl = cluster.url('postgres');
  }
  const env = { ...process.env, DATABASE_URL: databaseUrl, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
  try {
    log('== load data');
    cairn(['migrate'], env);
    const tenants = { small: 'bench-small', large: 'bench-large' };
    const seedTimes: Record<string, number> = {};
    for (const [size, tenant] of Object.entries(tenants) as ['small' | 'large', string][]) {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      const exists = (await db.query('SELECT 1 FROM tenants WHERE name = $1', [tenant])).rowCount;
      await db.end();
      if (exists) continue;
      const begin = Date.now();
      cairn(['seed', 'bulk', '--tenant', tenant, '--patients', String(sizes[size]), '--tasks', String(sizes[size] * 2)], env);
      seedTimes[size] = (Date.now() - begin) / 1000;
      cairn(
        [
          'client',
          'create',
          tenant,
          '--name',
          'bench',
          '--role',
          'sandbox:administrator',
          '--key',
          `${clientKey}-${size}`,
          '--secret',
          clientSecret,
        ],
        env,
      );
    }

    const samples = await sampleData(databaseUrl, tenants);
    const cairnPort = await freePort();
    const baselinePort = await freePort();
    log('== start servers');
    const server = startProcess(['dist/cli.js', 'serve', '--workers', '2'], {
      ...env,
      PORT: String(cairnPort),
      // The token scenario measures issuing, not the 100-per-5-minutes limit.
      CAIRN_TOKEN_LIMIT: '100000000',
    });
    const baseline = startProcess(['--import', 'tsx', 'bench/baseline.ts'], {
      ...env,
      PORT: String(baselinePort),
      WORKERS: '2',
      BASELINE_TENANTS: Object.values(tenants)
        .map((tenant) => `${tenant}/sandbox`)
        .join(','),
    });
    await waitFor(`http://127.0.0.1:${cairnPort}/health/ready`);
    await waitFor(`http://127.0.0.1:${baselinePort}/none`);
    const tokens: Record<string, string> = {};
    for (const size of ['small', 'large'] as const) {
      const response = await fetch(`http://127.0.0.1:${cairnPort}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiClient: `${clientKey}-${size}`, secret: clientSecret }),
      });
      tokens[size] = ((await response.json()) as { token: string }).token;
    }

    const scenarios = buildScenarios({ cairnPort, baselinePort, tenants, tokens, samples });
    const measured: Measured[] = [];
    const serverOf = (scenario: Scenario) => (scenario.target === 'cairn' ? server : baseline);
    for (const [index, scenario] of scenarios.entries()) {
      if (measured.some((m) => m.name === scenario.name && m.tenant === scenario.tenant)) continue;
      const pair = scenarios.slice(index + 1).find((s) => s.name === scenario.name && s.tenant === scenario.tenant);
      const group = pair ? [scenario, pair] : [scenario];
      // A short warm-up fills caches and lets the JIT settle before anything is measured.
      for (const member of group) await load({ ...member.plan, seconds: quick ? 1 : 2 });
      // Cairn and its baseline take turns, round by round, so a passing disturbance of this
      // shared machine falls on both rather than on one; the medians of the rounds are kept.
      const rounds: { result: LoadResult; peakMb: number }[][] = group.map(() => []);
      for (let round = 0; round < (pair ? ROUNDS : 1); round++) {
        for (const [position, member] of group.entries()) {
          const { value, peakMb } = await peakMemory(serverOf(member), () => load(member.plan));
          rounds[position]!.push({ result: value, peakMb });
        }
      }
      for (const [position, member] of group.entries()) {
        const runs = rounds[position]!;
        const result = medianResult(runs.map((run) => run.result));
        measured.push({
          ...member,
          result,
          peakMb: Math.max(...runs.map((run) => run.peakMb)),
          rounds: runs.map((run) => run.result),
        });
        log(
          `${member.name.padEnd(28)} ${member.target.padEnd(8)} ${member.tenant.padEnd(5)} ${result.rps.toFixed(0).padStart(6)} req/s  p95 ${result.p95.toFixed(1)} ms${result.non2xx ? `  (${result.non2xx} non-2xx)` : ''}`,
        );
      }
    }
    const report = summarize(measured, seedTimes, (Date.now() - started) / 1000);
    process.stdout.write(report.text);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    fs.writeFileSync(
      path.join(root, `bench/results/${stamp}${quick ? '-quick' : ''}.json`),
      JSON.stringify(report.json, null, 2),
    );
    fs.writeFileSync(path.join(root, `bench/results/latest${quick ? '-quick' : ''}.md`), report.text);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    cluster?.stop();
  }
}

interface Samples {
  patientIds: Record<string, string[]>;
  searchTerms: Record<string, string[]>;
  coordinators: Record<string, string[]>;
  taskIds: Record<string, string[]>;
}

/** Real ids, names and coordinators from the loaded data, so every request hits something. */
async function sampleData(url: string, tenants: Record<'small' | 'large', string>): Promise<Samples> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const samples: Samples = { patientIds: {}, searchTerms: {}, coordinators: {}, taskIds: {} };
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
    samples.taskIds[size] = (
      await db.query('SELECT id FROM tasks TABLESAMPLE SYSTEM (5) WHERE tenant_id = $1 LIMIT 2000', [tenantId])
    ).rows.map((row) => row.id);
  }
  await db.end();
  return samples;
}

function buildScenarios(context: {
  cairnPort: number;
  baselinePort: number;
  tenants: Record<'small' | 'large', string>;
  tokens: Record<string, string>;
  samples: Samples;
}): Scenario[] {
  const { samples } = context;
  const scenarios: Scenario[] = [];
  const plan = (
    target: 'cairn' | 'baseline',
    size: 'small' | 'large',
    method: LoadPlan['method'],
    paths: string[],
    bodies?: string[],
  ): LoadPlan => ({
    url: `http://127.0.0.1:${target === 'cairn' ? context.cairnPort : context.baselinePort}`,
    method,
    headers: target === 'cairn' ? { authorization: `Bearer ${context.tokens[size]}` } : {},
    paths: paths.map((p) => `/${context.tenants[size]}/sandbox${p}`),
    ...(bodies ? { bodies } : {}),
    connections,
    seconds,
  });
  const both = (name: string, size: 'small' | 'large', method: LoadPlan['method'], paths: string[], bodies?: string[]) => {
    for (const target of ['cairn', 'baseline'] as const)
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

function summarize(measured: Measured[], seedTimes: Record<string, number>, totalSeconds: number) {
  const find = (name: string, target: string, tenant: string) =>
    measured.find((m) => m.name === name && m.target === target && m.tenant === tenant);
  const rows = measured.map(
    (m) =>
      `| ${m.name} | ${m.target} | ${sizes[m.tenant].toLocaleString('en-US')} | ${m.result.rps.toFixed(0)} | ${m.result.p50.toFixed(1)} | ${m.result.p95.toFixed(1)} | ${m.result.p99.toFixed(1)} | ${m.peakMb.toFixed(0)} | ${m.result.non2xx + m.result.errors} |`,
  );
  // The median of the rounds' ratios: each compares runs taken moments apart.
  const ratio = (name: string, tenant: string, target: number) => {
    const cairn = find(name, 'cairn', tenant);
    const base = find(name, 'baseline', tenant);
    if (!cairn || !base) return undefined;
    const value = median(cairn.rounds.map((round, index) => round.rps / base.rounds[index]!.rps));
    return { name, value, target, ok: value >= target };
  };
  const overhead = [
    ratio('get patient by id', 'large', 0.7),
    ratio('create patient', 'large', 0.5),
    ratio('patient search', 'large', 0),
    ratio('patient list, filter + sort', 'large', 0),
  ].filter((entry) => entry !== undefined);
  const growth = ['patient search', 'patient list, filter + sort'].map((name) => {
    const small = find(name, 'cairn', 'small')!;
    const large = find(name, 'cairn', 'large')!;
    const value = large.result.p95 / small.result.p95;
    return { name, value, ok: value <= 2 };
  });
  const peak = Math.max(...measured.filter((m) => m.target === 'cairn').map((m) => m.peakMb));
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const text = [
    `# Cairn benchmark${quick ? ' (quick)' : ''}`,
    '',
    `${new Date().toISOString()} — ${machine}; PostgreSQL on the same machine; ${connections} connections (bulk edits 2), ${seconds} s per run; Cairn and the baseline each run 2 workers and take turns over ${ROUNDS} rounds (medians shown).`,
    '',
    '| Scenario | Server | Patients | req/s | p50 ms | p95 ms | p99 ms | peak RSS MB (worker) | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '**Cairn ÷ baseline (throughput)**',
    '',
    ...overhead.map(
      (o) => `- ${o.name}: ${o.value.toFixed(2)}${o.target ? ` (target ≥ ${o.target}: ${o.ok ? 'met' : 'MISSED'})` : ''}`,
    ),
    '',
    `**Growth, p95(${sizes.large.toLocaleString('en-US')}) ÷ p95(${sizes.small.toLocaleString('en-US')}) patients** (target ≤ 2)`,
    '',
    ...growth.map((g) => `- ${g.name}: ${g.value.toFixed(2)} (${g.ok ? 'met' : 'MISSED'})`),
    '',
    `**Peak worker memory:** ${peak.toFixed(0)} MB (target ≤ 300: ${peak <= 300 ? 'met' : 'MISSED'})`,
    '',
    `Seeding: ${
      Object.entries(seedTimes)
        .map(
          ([size, s]) =>
            `${sizes[size as 'small' | 'large'].toLocaleString('en-US')} patients + ${(2 * sizes[size as 'small' | 'large']).toLocaleString('en-US')} tasks in ${s.toFixed(0)} s`,
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
    peakMb: m.peakMb,
  }));
  return { text, json: { quick, machine, sizes, seconds, connections, figures, overhead, growth, peakMb: peak, seedTimes } };
}

main().catch((error: unknown) => {
  console.error(error);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
