/**
 * `npm run bench:export` (and part of `npm run bench`, on its 1M-patient tenant): walking the
 * bulk export to its end as an integrator does (`cursor.end` back as `start`, 500 a page) for
 * PATIENT and TASK; records per second, and the latency of the deepest full page against the
 * first, the two taking turns over rounds. Keyset pages on (updated_at, id) should cost the same
 * at any depth (target: last ÷ first ≤ 1.2, medians).
 *
 * Standalone it makes its own PostgreSQL and a tenant of 1,000,000 patients and 2,000,000 tasks
 * (100,000 and 200,000 with --quick) with `cairn seed bulk`, and serves it with
 * `cairn serve --workers 2` from the build.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startCluster } from '../src/test/postgres-cluster.ts';
import { benchClient, log, median, percentile, quick, root, standalone, waitFor } from './common.ts';

const PAGE_SIZE = 500;
const ROUNDS = quick ? 10 : 30;
const children: ChildProcess[] = [];

interface Walk {
  resource: string;
  records: number;
  pages: number;
  seconds: number;
  first: number[];
  deep: number[];
}

/** Walks `resource` to its end, then times its first page and its deepest full page in turns. */
async function walk(base: string, token: string, resource: string): Promise<Walk> {
  const headers = { authorization: `Bearer ${token}` };
  const url = (start: string | null) =>
    `${base}/export/${resource}?pageSize=${PAGE_SIZE}${start === null ? '' : `&start=${encodeURIComponent(start)}`}`;
  const fetchPage = async (start: string | null) => {
    const began = performance.now();
    const response = await fetch(url(start), { headers });
    if (!response.ok) throw new Error(`export ${resource}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { data: unknown[]; cursor: { end: string; hasNext: boolean } };
    return { body, ms: performance.now() - began };
  };
  log(`== export: walking ${resource}`);
  const began = Date.now();
  let start: string | null = null;
  let deepStart: string | null = null;
  let records = 0;
  let pages = 0;
  for (;;) {
    const { body } = await fetchPage(start);
    records += body.data.length;
    pages += 1;
    if (body.data.length === PAGE_SIZE) deepStart = start;
    if (!body.cursor.hasNext) break;
    start = body.cursor.end;
  }
  const seconds = (Date.now() - began) / 1000;
  const first: number[] = [];
  const deep: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    first.push((await fetchPage(null)).ms);
    deep.push((await fetchPage(deepStart)).ms);
  }
  return { resource, records, pages, seconds, first, deep };
}

/** The export's section of the report, for the tenant at `base` (`http://host:port/<tenant>/<instance>`). */
export async function benchExportWalks(base: string, token: string): Promise<string> {
  const walks = [await walk(base, token, 'PATIENT'), await walk(base, token, 'TASK')];
  const rows = walks.map((w) => {
    const ratio = median(w.deep) / median(w.first);
    return `| ${w.resource} | ${w.records.toLocaleString('en-US')} in ${w.pages.toLocaleString('en-US')} pages, ${w.seconds.toFixed(0)} s: ${(w.records / w.seconds).toFixed(0)} records/s | ${median(w.first).toFixed(1)} ms (p95 ${percentile(w.first, 95).toFixed(1)}) | ${median(w.deep).toFixed(1)} ms (p95 ${percentile(w.deep, 95).toFixed(1)}) | ${ratio.toFixed(2)}: ${ratio <= 1.2 ? 'met' : 'MISSED'} |`;
  });
  return [
    '',
    '## Bulk export',
    '',
    `${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}. One client walks each export to its end, ${PAGE_SIZE} a page; then its first page and its deepest full page take turns, ${ROUNDS} rounds (medians).`,
    '',
    '| Resource | Walked | First page | Deepest full page | deepest ÷ first (target ≤ 1.2) |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

async function benchExport(): Promise<string> {
  const cluster = await startCluster({ synchronous_commit: 'off' });
  try {
    const env = { ...process.env, DATABASE_URL: cluster.url('postgres'), CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
    const cli = (args: string[]) =>
      execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
    const patients = quick ? 100_000 : 1_000_000;
    log(`== export: a tenant of ${patients.toLocaleString('en-US')} patients and twice as many tasks`);
    cli(['migrate']);
    cli(['seed', 'bulk', '--tenant', 'export', '--patients', String(patients), '--tasks', String(patients * 2)]);
    const key = 'export-bench';
    const secret = 'export-bench-secret-0123';
    cli(benchClient('export', key, secret));
    const port = await freePort();
    children.push(
      spawn(process.execPath, ['dist/cli.js', 'serve', '--workers', '2'], {
        cwd: root,
        env: { ...env, PORT: String(port), CAIRN_TOKEN_LIMIT: '100000000' },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
    await waitFor(`http://127.0.0.1:${port}/health/ready`);
    const response = await fetch(`http://127.0.0.1:${port}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiClient: key, secret }),
    });
    const { token } = (await response.json()) as { token: string };
    return await benchExportWalks(`http://127.0.0.1:${port}/export/sandbox`, token);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    cluster.stop();
  }
}

standalone(import.meta.url, 'export', benchExport, children);
