/**
 * The job wake-ups on a Citus cluster (bench/citus.ts): Cairn nodes with job workers on, a webhook
 * subscription to a receiver here, first idle, then under a paced load of patient creates. For
 * each phase it reads what reached the cluster: the cross-tenant statements the coordinator ran
 * (each goes to many shards: a fan-out) per second, the statements the workers ran per second and
 * per request (remote commands), the coordinator's statements per request, the connections the
 * workers accepted per second, and the webhook deliveries with their delay (receipt less the
 * event's own time).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { median, percentile, settle } from './common.ts';

export interface WakeupFigures {
  phase: 'idle' | 'load';
  seconds: number;
  /** Creates answered 201. */
  requests: number;
  /** Cross-tenant statements the coordinator ran, per second. */
  fanOutsPerSecond: number;
  /** Their shard tasks (the workers' statements on the shards they named), per second. */
  fanOutTasksPerSecond: number;
  /** Every statement the workers ran, per second. */
  remotePerSecond: number;
  /** The same per create (load only). */
  remotePerRequest: number | null;
  /** The coordinator's statements per create, job work included (load only). */
  coordinatorPerRequest: number | null;
  /** Connections the workers accepted, per second. */
  workerConnectionsPerSecond: number;
  delivered: number;
  delayP50: number | null;
  delayP95: number | null;
}

/** A webhook receiver: answers 200 at once, and keeps each event's delay. */
async function startReceiver() {
  const delays: number[] = [];
  const ids = new Set<string>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const event = JSON.parse(body) as { id: string; timestamp: string };
      if (!ids.has(event.id)) delays.push(Date.now() - Date.parse(event.timestamp));
      ids.add(event.id);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, delays, close: () => server.close() };
}

/** One connection per node for every reading, so the readings add no connection of their own. */
async function readers(urls: string[]): Promise<pg.Client[]> {
  return Promise.all(
    urls.map(async (url) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
}

const own = `query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_stat_database%'`;

async function statements(client: pg.Client): Promise<{ query: string; calls: number }[]> {
  const { rows } = await client.query(`SELECT query, calls::int AS calls FROM pg_stat_statements WHERE ${own}`);
  return rows;
}

async function sessions(client: pg.Client): Promise<number> {
  const { rows } = await client.query(`SELECT sessions::int AS n FROM pg_stat_database WHERE datname = current_database()`);
  return rows[0].n;
}

/** A sweep's task on a shard: a look for tenants with due jobs or waiting events (`jobs_102008`, `events_102040`). */
const sweepTask = (text: string) => /\b(jobs|events)_\d+\b/.test(text) && /GROUP BY|DISTINCT tenant_id/i.test(text);

export interface WakeupOptions {
  /** The coordinator first, then the workers. */
  nodes: string[];
  /** Cairn nodes with job workers on, sharing the load. */
  bases: string[];
  /** Path prefix of the tenant's instance (`/citus-bench/sandbox`) and its admin routes. */
  instancePath: string;
  adminPath: string;
  token: string;
  seconds: number;
  /** Creates a second under load. */
  rate: number;
}

export async function measureWakeups(options: WakeupOptions): Promise<WakeupFigures[]> {
  const receiver = await startReceiver();
  const clients = await readers(options.nodes);
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  try {
    const hook = await fetch(`${options.bases[0]}${options.adminPath}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `wakeups-${Date.now()}`, url: receiver.url, eventSubtypes: ['PATIENT_CREATED'] }),
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
    // Settle: the nodes' first sweeps and periodic runs are behind us.
    await sleep(6_000);
    const figures: WakeupFigures[] = [];
    for (const phase of ['idle', 'load'] as const) {
      receiver.delays.length = 0;
      for (const client of clients) await client.query('SELECT pg_stat_statements_reset()');
      const before = await Promise.all(clients.slice(1).map(sessions));
      const started = Date.now();
      let created = 0;
      if (phase === 'idle') await sleep(options.seconds * 1000);
      else {
        const sent: Promise<void>[] = [];
        const total = options.seconds * options.rate;
        for (let i = 0; i < total; i++) {
          const base = options.bases[i % options.bases.length]!;
          sent.push(
            fetch(`${base}${options.instancePath}/patients`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ firstName: 'Wake', lastName: `Up${i}` }),
            }).then(async (response) => {
              await response.arrayBuffer();
              if (response.status === 201) created++;
            }),
          );
          await sleep(Math.max(0, started + ((i + 1) * 1000) / options.rate - Date.now()));
        }
        await Promise.all(sent);
        await settle(() => receiver.delays.length, created);
      }
      const seconds = (Date.now() - started) / 1000;
      const after = await Promise.all(clients.slice(1).map(sessions));
      const [coordinator, ...workers] = await Promise.all(clients.map(statements));
      const sum = (rows: { calls: number }[]) => rows.reduce((total, row) => total + row.calls, 0);
      const fanOuts = sum(coordinator!.filter((row) => row.query.includes('/*cross-tenant:')));
      const remote = sum(workers.flat());
      const tasks = sum(workers.flat().filter((row) => sweepTask(row.query)));
      const delays = [...receiver.delays];
      figures.push({
        phase,
        seconds,
        requests: created,
        fanOutsPerSecond: fanOuts / seconds,
        fanOutTasksPerSecond: tasks / seconds,
        remotePerSecond: remote / seconds,
        remotePerRequest: phase === 'load' ? remote / Math.max(1, created) : null,
        coordinatorPerRequest: phase === 'load' ? sum(coordinator!) / Math.max(1, created) : null,
        workerConnectionsPerSecond: after.reduce((total, n, i) => total + n - before[i]!, 0) / seconds,
        delivered: delays.length,
        delayP50: delays.length > 0 ? median(delays) : null,
        delayP95: delays.length > 0 ? percentile(delays, 95) : null,
      });
    }
    return figures;
  } finally {
    receiver.close();
    await Promise.all(clients.map((client) => client.end()));
  }
}

/** The figures as the bench's table rows. */
export function wakeupRows(figures: WakeupFigures[]): string[] {
  const n = (value: number | null, digits = 1) => (value === null ? '–' : value.toFixed(digits));
  return figures.map(
    (f) =>
      `| ${f.phase} | ${n(f.seconds, 0)} | ${f.requests} | ${n(f.fanOutsPerSecond)} | ${n(f.fanOutTasksPerSecond)} | ${n(f.remotePerSecond)} | ${n(f.remotePerRequest, 2)} | ${n(f.coordinatorPerRequest, 2)} | ${n(f.workerConnectionsPerSecond)} | ${f.delivered} | ${n(f.delayP50, 0)} | ${n(f.delayP95, 0)} |`,
  );
}
