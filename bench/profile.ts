/**
 * Where a Cairn worker's time goes under one scenario's load: a `cairn serve` process of its own
 * (one worker, the heap settings every worker runs with) under V8's sampling profiler
 * (`--cpu-prof`), its samples kept from the window the load ran in (the profile's clock is the
 * monotonic one `process.hrtime` reads), each sample put in one part of a request's work:
 *
 * - garbage collection: V8's own samples of its collector;
 * - statement: pg, its protocol and pool, Kysely and Cairn's db/ (building the SQL, encoding
 *   its parameters, parsing the rows);
 * - access record: the access log's hook and writer (events/access, http/access-log);
 * - authentication: the bearer token's check (jose), the caller's access and the request's context
 *   (http/access-hook, tokens, route-access, scopes, context);
 * - validation and serialization: TypeBox, fast-json-stringify, Cairn's http/validation,
 *   http/schema-compilation and wire/;
 * - HTTP: Node's HTTP parser and response headers;
 * - socket writes: the system calls that send a statement to PostgreSQL or an answer to its client
 *   (on a loaded machine, a write that wakes the reader may yield the core to it);
 * - framework and hooks: Fastify, its router, helmet, pino, prom-client and the rest of Cairn's
 *   http/ (request ids, metrics, idempotency);
 * - route: the area's own code (src/modules);
 * - other: microtasks and Node internals outside any of these.
 *
 * A sample is the part of its deepest frame that names one. Idle is the share of the window the process waited (on
 * PostgreSQL, on the network): the parts are shares of the busy rest. The profiler costs a few
 * percent of throughput, so this run's req/s is not compared with the measured ones.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { missingHeapFlags } from '../src/cli/heap.ts';
import { load, root, waitFor } from './common.ts';
import type { LoadPlan, LoadResult } from './load.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export const PARTS = [
  'garbage collection',
  'statement',
  'access record',
  'authentication',
  'validation and serialization',
  'HTTP',
  'socket writes',
  'framework and hooks',
  'route',
  'other',
] as const;
export type Part = (typeof PARTS)[number];

export interface Breakdown {
  /** Share of the window the process was idle (waiting), 0 to 1. */
  idle: number;
  /** Each part's share of the busy time, 0 to 1. */
  parts: Record<Part, number>;
  load: LoadResult;
}

const partOfUrl: [RegExp, Part][] = [
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|kysely)\//, 'statement'],
  [/\/dist\/db\//, 'statement'],
  [/\/dist\/(events\/access|http\/access-log)\./, 'access record'],
  [/node_modules\/jose\//, 'authentication'],
  [/\/dist\/http\/(access-hook|tokens|route-access|scopes|context)\./, 'authentication'],
  [/node_modules\/(typebox|@sinclair\/typebox|fast-json-stringify|fast-uri|ajv)\//, 'validation and serialization'],
  [/\/dist\/(http\/validation|http\/schema-compilation|wire\/)/, 'validation and serialization'],
  [/\/dist\/modules\//, 'route'],
  [/node_modules\//, 'framework and hooks'],
  [/\/dist\//, 'framework and hooks'],
];
const nodeHttp = /^node:(_http_|net$|internal\/stream_base_commons)/;

/** The part a sample's stack belongs to, from its leaf up. */
function partOf(stack: ProfileNode['callFrame'][]): Part {
  if (stack[0]?.functionName === '(garbage collector)') return 'garbage collection';
  if (stack[0]?.url === '' && /^write/.test(stack[0].functionName) && stack.some((frame) => frame.url === 'node:net')) {
    return 'socket writes';
  }
  let http = false;
  for (const frame of stack) {
    if (nodeHttp.test(frame.url)) http = true;
    const found = partOfUrl.find(([pattern]) => pattern.test(frame.url));
    if (!found) continue;
    // A socket write under pg is the statement's; under anything else, the response's.
    if (http && found[1] !== 'statement') return 'HTTP';
    return found[1];
  }
  return http ? 'HTTP' : 'other';
}

/** The breakdown of a profile's samples taken between `from` and `to` (microseconds, the monotonic clock). */
export function breakdown(profile: CpuProfile, from: number, to: number): Omit<Breakdown, 'load'> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const partCache = new Map<number, Part | 'idle'>();
  const partOfNode = (id: number): Part | 'idle' => {
    let part = partCache.get(id);
    if (part) return part;
    const leaf = byId.get(id)!.callFrame.functionName;
    if (leaf === '(idle)' || leaf === '(program)') part = 'idle';
    else {
      const stack = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!.callFrame);
      part = partOf(stack);
    }
    partCache.set(id, part);
    return part;
  };
  const totals = new Map<Part | 'idle', number>();
  let time = profile.startTime;
  let window = 0;
  for (const [index, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (time < from || time > to) continue;
    window += delta;
    const part = partOfNode(id);
    totals.set(part, (totals.get(part) ?? 0) + delta);
  }
  const idle = totals.get('idle') ?? 0;
  const busy = Math.max(1, window - idle);
  const parts = Object.fromEntries(PARTS.map((part) => [part, (totals.get(part) ?? 0) / busy])) as Record<Part, number>;
  return { idle: window > 0 ? idle / window : 0, parts };
}

const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Runs `plan` (its url replaced) against a profiled `cairn serve` of one worker started with `env`,
 * after a second's warm-up, and answers where that worker's time went.
 */
export async function profileScenario(env: NodeJS.ProcessEnv, port: number, plan: LoadPlan): Promise<Breakdown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-profile-'));
  const server: ChildProcess = spawn(
    process.execPath,
    // The heap settings a single `cairn serve` restarts itself with (cli/heap.ts), given here so it does not.
    [...(missingHeapFlags(['serve'], [], env) ?? []), '--cpu-prof', `--cpu-prof-dir=${dir}`, 'dist/cli.js', 'serve'],
    { cwd: root, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/health/ready`);
    await load({ ...plan, url, seconds: 1 });
    const from = nowMicros();
    const result = await load({ ...plan, url });
    const to = nowMicros();
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
    const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the profiled server wrote no profile');
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    return { ...breakdown(profile, from, to), load: result };
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The breakdowns as a markdown table, a row per scenario. */
export function breakdownTable(rows: { name: string; breakdown: Breakdown }[]): string[] {
  const pct = (share: number) => `${Math.round(share * 100)}%`;
  return [
    `| scenario (one profiled worker) | req/s | idle | ${PARTS.join(' | ')} |`,
    `|---|---|---|${PARTS.map(() => '---').join('|')}|`,
    ...rows.map(
      ({ name, breakdown: b }) =>
        `| ${name} | ${Math.round(b.load.rps)} | ${pct(b.idle)} | ${PARTS.map((part) => pct(b.parts[part])).join(' | ')} |`,
    ),
  ];
}
