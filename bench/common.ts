/** What the bench's parts share: where the project is, logging, statistics, loads from their own process, standalone runs. */
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { LoadPlan, LoadResult } from './load.ts';

export const root = path.resolve(import.meta.dirname, '..');
export const quick = process.argv.includes('--quick');

export function log(message: string) {
  process.stderr.write(`${message}\n`);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function waitFor(url: string) {
  for (let attempt = 0; attempt < 240; attempt++) {
    const up = await fetch(url).then(
      (response) => response.status < 500,
      () => false,
    );
    if (up) return;
    await sleep(250);
  }
  throw new Error(`${url} did not come up`);
}

/**
 * Drives one scenario with autocannon from its own process (bench/load.ts), so the load does not
 * share this process's event loop (where a webhook receiver or an SMTP server may run). Plans list
 * thousands of paths: too long for a command line, so they travel in a file.
 */
export async function load(plan: LoadPlan): Promise<LoadResult> {
  const planFile = path.join(os.tmpdir(), `cairn-bench-plan-${process.pid}.json`);
  fs.writeFileSync(planFile, JSON.stringify(plan));
  const output = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', 'bench/load.ts', planFile], { cwd: root, encoding: 'utf8' }, (error, text) =>
      error ? reject(error) : resolve(text),
    ),
  );
  return JSON.parse(output) as LoadResult;
}

/** Waits until `count()` reaches `target`, or 60 s pass without it growing. */
export async function settle(count: () => number, target: number): Promise<void> {
  let last = count();
  let quietSince = Date.now();
  while (count() < target && Date.now() - quietSince < 60_000) {
    await sleep(100);
    if (count() !== last) {
      last = count();
      quietSince = Date.now();
    }
  }
}

/**
 * Runs a part of the bench on its own (`npm run bench:<name>`) when its file is the one started:
 * builds first, prints its section and saves it as bench/results/latest-<name>.md.
 */
export function standalone(url: string, name: string, bench: () => Promise<string>, children: ChildProcess[] = []) {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(url)) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  bench().then(
    (text) => {
      process.stdout.write(text);
      fs.writeFileSync(path.join(root, `bench/results/latest-${name}${quick ? '-quick' : ''}.md`), text);
    },
    (error: unknown) => {
      console.error(error);
      for (const child of children) child.kill('SIGTERM');
      process.exit(1);
    },
  );
}

/**
 * Whether the bench's PostgreSQL makes commits wait for the disk, as PostgreSQL does by default:
 * `BENCH_SYNCHRONOUS_COMMIT=on`. Off otherwise, so a run measures the server, not this machine's
 * fsync; on, it shows what a read that writes its access record pays for a durable commit.
 */
export const synchronousCommit = process.env.BENCH_SYNCHRONOUS_COMMIT === 'on' ? 'on' : 'off';

/**
 * A throwaway PostgreSQL's settings for measuring (run.ts, access-log.ts): commits as
 * `synchronousCommit` says. Tuned by the usual rules for
 * a dedicated server: a quarter of memory for shared buffers (at most 8 GB), most of the rest
 * counted as OS cache, SSD-like random reads.
 */
export function tunedPostgres(): Record<string, string> {
  const memoryMb = Math.floor(os.totalmem() / 2 ** 20);
  return {
    shared_buffers: `${Math.min(8192, Math.floor(memoryMb / 4))}MB`,
    effective_cache_size: `${Math.floor((memoryMb * 3) / 4)}MB`,
    random_page_cost: '1.1',
    synchronous_commit: synchronousCommit,
    max_connections: '100',
  };
}

/** The arguments of `cairn client create` for the bench's client: an administrator of the tenant's sandbox. */
export function benchClient(tenant: string, key: string, secret: string): string[] {
  return ['client', 'create', tenant, '--name', 'bench', '--role', 'sandbox:administrator', '--key', key, '--secret', secret];
}

/** One statement on its own connection, for the bench's setup and its readings. */
export async function query<R extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** `cairn <args>` from the build, its output left out but for errors. */
export function cli(args: string[], env: NodeJS.ProcessEnv) {
  execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A bearer token for an API client. */
export async function token(base: string, key: string, secret: string): Promise<string> {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiClient: key, secret }),
  });
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}
