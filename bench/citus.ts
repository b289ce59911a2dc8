/**
 * `npm run bench:citus` (and the end of `npm run bench`): Cairn on a Citus cluster against Cairn
 * on plain PostgreSQL, on the same machine, the same data and the same load.
 *
 * Each engine gets a fresh database (a throwaway PostgreSQL; a throwaway Citus cluster of a
 * coordinator and two workers from shared/citus, fsync off on both), the same bulk tenant, and two
 * Cairn nodes (`cairn serve`, one process each, job workers off) that share the load: get a patient
 * by id, search, a filtered and sorted list, and create. For each it reports req/s and p95, the
 * statements each request sends (the coordinator's pg_stat_statements), and on Citus the shards
 * each statement touched: the statements the workers ran on shards of tenant tables (their own
 * pg_stat_statements) over the coordinator's statements that name a tenant table. 1 means every
 * statement went to one shard.
 *
 * Then the job wake-ups (bench/wakeups.ts): two nodes with job workers on, idle and under 20
 * creates a second with a webhook subscribed, reporting fan-outs per second (the cross-tenant
 * statements), remote commands per second and per request, worker connections opened per second
 * and the deliveries' delay.
 *
 * The coordinator's hop is priced on its own too: the get-by-id query sent straight to each
 * engine with no Cairn in between (same connections, same ids). Cairn's Citus ÷ PostgreSQL ratio
 * next to that bare ratio says whether anything costs more than the hop.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import { benchClient, cli, load, log, median, query, quick, root, standalone, waitFor } from './common.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { measureWakeups, wakeupRows } from './wakeups.ts';

const PATIENTS = quick ? 10_000 : 100_000;
const seconds = quick ? 3 : 8;
const ROUNDS = quick ? 1 : 3;
/** The job wake-ups' phases: their length, and the creates a second under load. */
const WAKEUP_SECONDS = quick ? 10 : 30;
const WAKEUP_RATE = 20;
/** Connections per Cairn node (two nodes). */
const CONNECTIONS = 5;
const clientKey = 'citus-bench';
const clientSecret = 'citus-bench-secret-0123';
const tenant = 'citus-bench';
const children: ChildProcess[] = [];

type Engine = 'postgres' | 'citus';

interface Engines {
  urls: Record<Engine, string>;
  /** Every node of the Citus cluster (the coordinator first), for pg_stat_statements. */
  citusNodes: string[];
  stop(): void;
}

/** shared/citus beside the project, when it is there. */
function citusScripts(): string | undefined {
  return [path.join(root, '../shared/citus'), '/work/shared/citus'].find((dir) => fs.existsSync(path.join(dir, 'cluster.sh')));
}

async function startEngines(): Promise<Engines> {
  const scripts = citusScripts();
  if (!scripts) throw new Error('shared/citus is not beside the project');
  execFileSync('bash', [path.join(scripts, 'install.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-citus-bench-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  // The workers take the two ports after the coordinator's.
  const port = await freePort();
  const env = { ...process.env, CITUS_DIR: path.join(dir, 'cluster'), CITUS_PORT: String(port), CITUS_FAST: '1' };
  const cluster = (action: string, ...args: string[]) =>
    spawnSync('bash', [path.join(scripts, 'cluster.sh'), action, ...args], { env, encoding: 'utf8' });
  const destroy = () => {
    cluster('destroy');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const citusNodes = [0, 1, 2].map((i) => `postgres://postgres@127.0.0.1:${port + i}/postgres`);
  try {
    const started = cluster('start');
    if (started.status !== 0) throw new Error(`the Citus cluster did not start:\n${started.stdout}${started.stderr}`);
    // pg_stat_statements on every node (after citus, which must come first), then a restart.
    for (const url of citusNodes) await query(url, 'ALTER SYSTEM SET shared_preload_libraries = citus, pg_stat_statements');
    cluster('stop');
    const restarted = cluster('start');
    if (restarted.status !== 0) throw new Error(`the Citus cluster did not restart:\n${restarted.stdout}${restarted.stderr}`);
    // Made on the coordinator, which makes it on the workers (they refuse it themselves).
    await query(citusNodes[0]!, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } catch (error) {
    destroy();
    throw error;
  }

  const plain: Cluster = await startCluster({
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '300',
    shared_buffers: '128MB',
    shared_preload_libraries: 'pg_stat_statements',
  });
  await query(plain.url('postgres'), 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    urls: { postgres: plain.url('postgres'), citus: citusNodes[0]! },
    citusNodes,
    stop() {
      plain.stop();
      destroy();
    },
  };
}

/** Two Cairn nodes on one engine, API only unless `extra` turns their job workers on. */
async function startNodes(url: string, extra: Record<string, string> = {}): Promise<string[]> {
  const env = { ...process.env, DATABASE_URL: url, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn', CAIRN_JOB_WORKERS: '0', ...extra };
  const bases: string[] = [];
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    children.push(
      spawn(process.execPath, ['dist/cli.js', 'serve'], { cwd: root, env: { ...env, PORT: String(port) }, stdio: 'ignore' }),
    );
    bases.push(`http://127.0.0.1:${port}`);
  }
  for (const base of bases) await waitFor(`${base}/health/ready`);
  return bases;
}

interface Sample {
  tenantId: string;
  patientIds: string[];
  searchTerms: string[];
  coordinators: string[];
}

async function prepare(url: string): Promise<Sample> {
  const env = { ...process.env, DATABASE_URL: url, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
  cli(['migrate'], env);
  cli(['seed', 'bulk', '--tenant', tenant, '--patients', String(PATIENTS), '--tasks', '0', '--events', '0'], env);
  cli(benchClient(tenant, clientKey, clientSecret), env);
  const tenantId = (await query<{ id: string }>(url, 'SELECT id FROM tenants WHERE name = $1', [tenant]))[0]!.id;
  const patients = await query<{ id: string; last_name: string }>(
    url,
    'SELECT id, last_name FROM patients WHERE tenant_id = $1 ORDER BY id LIMIT 2000',
    [tenantId],
  );
  const coordinators = await query<{ id: string }>(url, 'SELECT id FROM users WHERE tenant_id = $1 ORDER BY id LIMIT 100', [
    tenantId,
  ]);
  return {
    tenantId,
    patientIds: patients.map((row) => row.id),
    searchTerms: patients.slice(0, 200).map((row) => row.last_name),
    coordinators: coordinators.map((row) => row.id),
  };
}

interface Scenario {
  name: string;
  method: LoadPlan['method'];
  paths: string[];
  bodies?: string[];
}

function scenarios(sample: Sample): Scenario[] {
  const bodies = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({ firstName: `Citus${i}`, lastName: `Bench${i}`, email: `citus${i}@example.org`, birthDate: '1980-05-06' }),
  );
  return [
    { name: 'get patient by id', method: 'GET', paths: sample.patientIds.map((id) => `/patients/${id}`) },
    {
      name: 'patient search',
      method: 'GET',
      paths: sample.searchTerms.map((term) => `/patients?search=${encodeURIComponent(term)}`),
    },
    {
      name: 'patient list, filter + sort',
      method: 'GET',
      paths: sample.coordinators.map((id) => `/patients?careTeamMemberId=${id}&sort=lastName,asc`),
    },
    { name: 'create patient', method: 'POST', paths: ['/patients'], bodies },
  ];
}

/** Both nodes loaded at once (half the connections each); their figures together. */
async function loadBoth(bases: string[], token: string, scenario: Scenario): Promise<LoadResult> {
  const results = await Promise.all(
    bases.map((base) =>
      load({
        url: base,
        method: scenario.method,
        headers: { authorization: `Bearer ${token}` },
        paths: scenario.paths.map((p) => `/${tenant}/sandbox${p}`),
        ...(scenario.bodies ? { bodies: scenario.bodies } : {}),
        connections: CONNECTIONS,
        seconds,
      }),
    ),
  );
  return {
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    sent: results.reduce((sum, r) => sum + r.sent, 0),
    rps: results.reduce((sum, r) => sum + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p95: Math.max(...results.map((r) => r.p95)),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** The statements each node ran since its last reset: everything but pg_stat_statements' own. */
async function statementsRun(url: string): Promise<{ query: string; calls: number }[]> {
  return query<{ query: string; calls: number }>(
    url,
    `SELECT query, calls::int AS calls FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%'`,
  );
}

/**
 * The shards of tenant tables on the Citus coordinator, each with its shard group: the position of
 * its hash range among its table's shards (co-located tables share positions, so one tenant's
 * rows of every table are in one group).
 */
async function shardGroups(url: string): Promise<{ tables: string[]; groupOf: Map<string, number> }> {
  const rows = await query<{ shardid: string; name: string; position: number }>(
    url,
    `SELECT s.shardid::text, p.logicalrelid::regclass::text AS name,
            (rank() OVER (PARTITION BY s.logicalrelid ORDER BY s.shardminvalue::int))::int AS position
       FROM pg_dist_shard s JOIN pg_dist_partition p USING (logicalrelid)
      WHERE p.partmethod = 'h'`,
  );
  return {
    tables: [...new Set(rows.map((row) => row.name))],
    groupOf: new Map(rows.map((row) => [`${row.name}_${row.shardid}`, row.position])),
  };
}

const namesAny = (text: string, tables: string[]) => tables.some((table) => new RegExp(`\\b"?${table}"?\\b`).test(text));

interface Figures {
  result: LoadResult;
  statementsPerRequest: number;
  /** Citus only: the shard groups of tenant tables the workers touched (the one tenant's: 1). */
  shardGroups: number | null;
  /** Citus only: the workers' statements on tenant shards per coordinator statement on tenant tables. */
  remotePerStatement: number | null;
  /** Citus only: the workers' statements on tenant shards per request (remote commands). */
  remotePerRequest: number | null;
}

async function measure(
  engine: Engine,
  engines: Engines,
  bases: string[],
  token: string,
  scenario: Scenario,
  shards: { tables: string[]; groupOf: Map<string, number> },
): Promise<Figures> {
  const nodes = engine === 'citus' ? engines.citusNodes : [engines.urls.postgres];
  for (const url of nodes) await query(url, 'SELECT pg_stat_statements_reset()');
  const result = await loadBoth(bases, token, scenario);
  const [coordinator, ...workers] = await Promise.all(nodes.map(statementsRun));
  const sent = coordinator!.reduce((sum, row) => sum + row.calls, 0);
  const figures: Figures = {
    result,
    statementsPerRequest: sent / Math.max(1, result.sent),
    shardGroups: null,
    remotePerStatement: null,
    remotePerRequest: null,
  };
  if (engine === 'citus') {
    const onTenantTables = coordinator!
      .filter((row) => namesAny(row.query, shards.tables))
      .reduce((sum, row) => sum + row.calls, 0);
    // A shard's name is its table's and its shard id: patients_102008.
    const groups = new Set<number>();
    let remote = 0;
    for (const row of workers.flat()) {
      const touched = [...row.query.matchAll(/\b(\w+_\d+)\b/g)].flatMap(([, shard]) => {
        const group = shards.groupOf.get(shard!);
        return group === undefined ? [] : [group];
      });
      if (touched.length === 0) continue;
      for (const group of touched) groups.add(group);
      remote += row.calls;
    }
    figures.shardGroups = groups.size;
    figures.remotePerStatement = onTenantTables > 0 ? remote / onTenantTables : null;
    figures.remotePerRequest = remote / Math.max(1, result.sent);
  }
  return figures;
}

/** The coordinator's hop alone: the get-by-id query straight to the engine, 10 clients, no Cairn. */
async function bareGet(url: string, sample: Sample): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: 2 * CONNECTIONS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  let done = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < until) {
        const id = sample.patientIds[done % sample.patientIds.length];
        await client.query({
          name: 'bare-get',
          text: 'SELECT * FROM patients WHERE tenant_id = $1 AND id = $2',
          values: [sample.tenantId, id],
        });
        done++;
      }
    }),
  );
  await Promise.all(clients.map((client) => client.end()));
  return done / seconds;
}

async function token(base: string): Promise<string> {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiClient: clientKey, secret: clientSecret }),
  });
  return ((await response.json()) as { token: string }).token;
}

export async function benchCitus(): Promise<string> {
  log('== Citus: a coordinator and two workers, against plain PostgreSQL');
  const engines = await startEngines();
  try {
    const samples = {} as Record<Engine, Sample>;
    const nodes = {} as Record<Engine, string[]>;
    const tokens = {} as Record<Engine, string>;
    for (const engine of ['postgres', 'citus'] as const) {
      const begin = Date.now();
      samples[engine] = await prepare(engines.urls[engine]);
      log(`${engine}: migrated and seeded ${PATIENTS} patients in ${((Date.now() - begin) / 1000).toFixed(0)} s`);
      nodes[engine] = await startNodes(engines.urls[engine]);
      tokens[engine] = await token(nodes[engine][0]!);
    }
    const shards = await shardGroups(engines.urls.citus);
    const rows: string[] = [];
    const json: Record<string, unknown>[] = [];
    for (const [index, scenario] of scenarios(samples.postgres).entries()) {
      const citusScenario = scenarios(samples.citus)[index]!;
      // Warm both, then the engines take turns round by round; medians kept.
      for (const engine of ['postgres', 'citus'] as const) {
        await loadBoth(nodes[engine], tokens[engine], { ...(engine === 'citus' ? citusScenario : scenario) });
      }
      const runs: Record<Engine, Figures[]> = { postgres: [], citus: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const engine of ['postgres', 'citus'] as const) {
          runs[engine].push(
            await measure(engine, engines, nodes[engine], tokens[engine], engine === 'citus' ? citusScenario : scenario, shards),
          );
        }
      }
      const pick = (engine: Engine, f: (figures: Figures) => number | null) => {
        const values = runs[engine].map(f).filter((v): v is number => v !== null);
        return values.length > 0 ? median(values) : null;
      };
      const rps = (engine: Engine) => pick(engine, (f) => f.result.rps)!;
      const ratio = median(runs.citus.map((f, i) => f.result.rps / runs.postgres[i]!.result.rps));
      const errors = [...runs.postgres, ...runs.citus].reduce((sum, f) => sum + f.result.errors + f.result.non2xx, 0);
      const line = {
        name: scenario.name,
        postgresRps: rps('postgres'),
        citusRps: rps('citus'),
        ratio,
        postgresP95: pick('postgres', (f) => f.result.p95),
        citusP95: pick('citus', (f) => f.result.p95),
        postgresStatements: pick('postgres', (f) => f.statementsPerRequest),
        citusStatements: pick('citus', (f) => f.statementsPerRequest),
        shardGroups: pick('citus', (f) => f.shardGroups),
        remotePerStatement: pick('citus', (f) => f.remotePerStatement),
        remotePerRequest: pick('citus', (f) => f.remotePerRequest),
        errors,
      };
      json.push(line);
      const n = (value: number | null, digits = 0) => (value === null ? '–' : value.toFixed(digits));
      rows.push(
        `| ${line.name} | ${n(line.postgresRps)} | ${n(line.citusRps)} | ${n(ratio, 2)} | ${n(line.postgresP95, 1)} | ${n(line.citusP95, 1)} | ${n(line.postgresStatements, 2)} | ${n(line.citusStatements, 2)} | ${n(line.shardGroups)} | ${n(line.remotePerStatement, 2)} | ${n(line.remotePerRequest, 2)} | ${errors} |`,
      );
      log(rows.at(-1)!);
    }
    const bare = {
      postgres: await bareGet(engines.urls.postgres, samples.postgres),
      citus: await bareGet(engines.urls.citus, samples.citus),
    };
    const hop = bare.citus / bare.postgres;
    // The job wake-ups: two more nodes, job workers on, idle and then under paced creates.
    const jobNodes = await startNodes(engines.urls.citus, { CAIRN_JOB_WORKERS: '12', CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    const wakeups = await measureWakeups({
      nodes: engines.citusNodes,
      bases: jobNodes,
      instancePath: `/${tenant}/sandbox`,
      adminPath: `/${tenant}/admin`,
      token: tokens.citus,
      seconds: WAKEUP_SECONDS,
      rate: WAKEUP_RATE,
    });
    for (const row of wakeupRows(wakeups)) log(row);
    const get = json.find((line) => line.name === 'get patient by id') as { ratio: number } | undefined;
    const text = [
      '',
      '## Citus',
      '',
      `${new Date().toISOString()}: ${PATIENTS.toLocaleString('en-US')} patients in one tenant; on the same machine, a throwaway PostgreSQL and a throwaway Citus 13.2 cluster (a coordinator and two workers), fsync off on both; two Cairn nodes (\`cairn serve\`, job workers off) on each, ${CONNECTIONS} connections to each node, ${seconds} s per run, the engines taking turns over ${ROUNDS} round(s) (medians). Statements per request from the coordinator's pg_stat_statements. Shard groups touched: the co-located shards of tenant tables the workers' statements named over the whole run (their pg_stat_statements), all for one tenant, so 1 means every statement of every request ran on that tenant's one shard group (of ${new Set(shards.groupOf.values()).size}). Worker statements per statement: what the coordinator sent the workers for each of its statements on tenant tables; above 1 where one statement writes several tables (Citus runs each writing CTE as its own step, all on the same shard group).`,
      '',
      '| Scenario | PostgreSQL req/s | Citus req/s | Citus ÷ PostgreSQL | p95 ms PostgreSQL | p95 ms Citus | statements / request PostgreSQL | statements / request Citus | shard groups touched (Citus) | worker statements / statement (Citus) | remote commands / request (Citus) | errors |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `**Job wake-ups** (Citus): two more Cairn nodes with job workers on (12 each), a webhook subscription to a receiver in the bench, ${WAKEUP_SECONDS} s idle, then ${WAKEUP_SECONDS} s of ${WAKEUP_RATE} patient creates a second spread over them (until every delivery arrived). Fan-outs: the coordinator's cross-tenant statements (\`src/db/cross-tenant.ts\`); their tasks: the workers' statements on the shards they read. Remote commands: every statement the workers ran (the cluster's own upkeep included). Worker connections: sessions the workers accepted (\`pg_stat_database\`).`,
      '',
      '| Phase | s | creates | fan-outs / s | fan-out tasks / s | remote commands / s | remote commands / request | coordinator statements / request | worker connections / s | deliveries | delay p50 ms | delay p95 ms |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...wakeupRows(wakeups),
      '',
      `**The hop alone:** the get-by-id query sent straight to each engine (10 connections, no Cairn): ${bare.postgres.toFixed(0)} queries/s on PostgreSQL, ${bare.citus.toFixed(0)} through the coordinator (${hop.toFixed(2)}).${get ? ` Cairn's get by id on Citus runs at ${get.ratio.toFixed(2)} of PostgreSQL: ${get.ratio >= hop * 0.9 ? 'the hop is the cost' : 'something beyond the hop costs; see the statements per request'}.` : ''}`,
      '',
    ].join('\n');
    return text;
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    engines.stop();
  }
}

standalone(import.meta.url, 'citus', benchCitus, children);
