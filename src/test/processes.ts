import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './postgres-cluster.ts';

/** Tests that run Cairn as an operator does: real `cairn` processes, called over real HTTP. */

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  text: string;
}

/** One request on a new connection, so a cluster can hand each to a different worker. */
export function call(method: string, url: string, body?: unknown, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method,
      agent: false,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {}
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed, text });
      });
    });
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export interface Started {
  base: string;
  child: ChildProcess;
  /** What the server printed so far, stdout and stderr. */
  output(): string;
  stop(): void;
  stopped: Promise<void>;
}

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts `cairn serve --workers N` and waits until each worker answers (up to `timeoutMs`). */
export async function startServer(
  workers: number,
  env: NodeJS.ProcessEnv,
  { timeoutMs = 60_000, onSpawn }: { timeoutMs?: number; onSpawn?: (started: Started) => void } = {},
): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--workers', String(workers)], {
    // No job workers unless a test asks: on the shared test database they would take other tests' jobs.
    env: { CAIRN_JOB_WORKERS: '0', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started: Started = {
    base: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: () => child.kill('SIGTERM'),
    stopped,
  };
  onSpawn?.(started);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
    const ready = await call('GET', `${started.base}/health/ready`).catch(() => undefined);
    if (ready?.status === 200 && (await workersAnswering(started.base, workers)).size >= workers) {
      // The banner is printed once listening: give it a moment to arrive.
      for (let i = 0; i < 20 && !output.includes('Get a token') && env.CAIRN_DEMO === 'true'; i++) await sleep(100);
      return started;
    }
    await sleep(250);
  }
  throw new Error(`the server did not start within ${timeoutMs} ms:\n${output}`);
}

/** The worker ids that answer /health/live over a few dozen new connections. */
export async function workersAnswering(base: string, expected: number): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < 40 && seen.size < expected; i++) {
    const live = await call('GET', `${base}/health/live`).catch(() => undefined);
    if (live?.status === 200) seen.add(live.body.worker);
  }
  return seen;
}

/** The runs of a job kind a node's workers ended in success, from its /metrics' cairn_jobs_total. */
export async function jobsSucceeded(node: Started, kind: string): Promise<number> {
  const metrics = await call('GET', `${node.base}/metrics`);
  const line = metrics.text.split('\n').find((l) => l.startsWith(`cairn_jobs_total{kind="${kind}",outcome="succeeded"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

/**
 * The nodes' successful runs of a kind once they reach `expected` (or 30 s pass): a receiver sees a
 * delivery before its job records its end, so counting at the receiver's last request races the
 * runs still finishing. Then a moment more, for a run that would come twice.
 */
export async function jobsSettled(nodes: Started[], kind: string, expected: number): Promise<number[]> {
  let runs = await Promise.all(nodes.map((node) => jobsSucceeded(node, kind)));
  for (let waited = 0; runs.reduce((a, b) => a + b, 0) < expected && waited < 30_000; waited += 100) {
    await sleep(100);
    runs = await Promise.all(nodes.map((node) => jobsSucceeded(node, kind)));
  }
  await sleep(500);
  return Promise.all(nodes.map((node) => jobsSucceeded(node, kind)));
}
