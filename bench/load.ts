/**
 * The load generator, run as its own process so it does not share a core's event loop with
 * the server: drives one scenario with autocannon and prints its figures as JSON.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import autocannon from 'autocannon';

export interface LoadPlan {
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  headers: Record<string, string>;
  /** Paths (with query) to cycle through at random; the first is used when there is one. */
  paths: string[];
  /** Bodies to cycle through at random, for writes. */
  bodies?: string[];
  connections: number;
  seconds: number;
  /** Requests per second across all connections, when the load is paced rather than as fast as it goes. */
  rate?: number;
  /** Each request sends a fresh Idempotency-Key, as the typed client does for every write. */
  idempotencyKeys?: boolean;
}

export interface LoadResult {
  /** Requests answered within the window. */
  requests: number;
  /**
   * Requests sent, answered or not: those in flight when the window closes still run their
   * statements, so a count of statements is divided by these.
   */
  sent: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  // Every response time is kept, so p95 is exact (autocannon's summary has p90 and p97.5 only).
  const times: number[] = [];
  let finish: (result: autocannon.Result) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: plan.url,
      connections: plan.connections,
      duration: plan.seconds,
      ...(plan.rate ? { overallRate: plan.rate } : {}),
      method: plan.method,
      headers: { 'content-type': 'application/json', ...plan.headers },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            path: pick(plan.paths),
            ...(plan.bodies ? { body: pick(plan.bodies) } : {}),
            ...(plan.idempotencyKeys ? { headers: { ...request.headers, 'idempotency-key': randomUUID() } } : {}),
          }),
        },
      ],
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  const result = await done;
  times.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    sent: result.requests.sent,
    rps: result.requests.total / plan.seconds,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

const plan = JSON.parse(fs.readFileSync(process.argv[2] ?? '', 'utf8')) as LoadPlan;
run(plan).then(
  (result) => process.stdout.write(JSON.stringify(result)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
