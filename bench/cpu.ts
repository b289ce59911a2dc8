/**
 * CPU time by who spent it, over a load run: a Cairn server (its primary and the workers it
 * forked), PostgreSQL's backends (the sessions running the statements), its WAL writer, its other
 * background processes (checkpointer, autovacuum, ...), and the whole machine (the load's client
 * too). Read from /proc before and after, so it needs the database on this machine; without it the
 * PostgreSQL parts are null. Per request, it says where a request's cost goes on the machine the
 * bench shares: with every core busy, req/s is about the cores over the machine's CPU per request.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import pg from 'pg';
import { workerPids } from './memory.ts';

export const CPU_PARTS = ['cairn', 'backends', 'walWriter', 'background', 'machine'] as const;
export type CpuPart = (typeof CPU_PARTS)[number];
/** A figure of CPU by part (seconds over a run, or µs per request); null where not measurable. */
export type CpuByPart = Record<CpuPart, number | null>;

interface Snapshot {
  /** Ticks by process, with the part each belongs to. */
  processes: Map<number, { part: CpuPart; ticks: number }>;
  machineTicks: number;
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's (`/proc/<pid>/stat`) or thread's (`/proc/<pid>/task/<tid>/stat`) parent and user plus system ticks, or null once it is gone. */
function statOf(pid: number, path = `/proc/${pid}/stat`): { ppid: number; ticks: number } | null {
  try {
    // The command may hold spaces and parentheses: the fields start after its last ')'.
    const text = fs.readFileSync(path, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/**
 * A process's CPU ticks, its main thread's (the JavaScript) and its other threads' (V8's
 * collector, libuv's threads); a thread gone meanwhile is lost, as the kernel's own totals keep it.
 */
export function threadTicks(pid: number): { main: number; others: number } {
  const ticks = { main: 0, others: 0 };
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    ticks[task === String(pid) ? 'main' : 'others'] += statOf(pid, `/proc/${pid}/task/${task}/stat`)?.ticks ?? 0;
  }
  return ticks;
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Every process on the machine with its parent and ticks: the postmaster's children are found among them. */
function allProcesses(): Map<number, { ppid: number; ticks: number }> {
  const found = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat) found.set(Number(entry), stat);
  }
  return found;
}

/**
 * The PostgreSQL server behind `url` when it runs here: a session's process is its child. Null when
 * it is elsewhere (the session's pid is not a postgres process of this machine).
 */
export async function postmasterOf(url: string): Promise<number | null> {
  // Read while the session lasts: its process ends with it.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]!.pid;
    const backend = statOf(pid);
    return backend && commandOf(pid).startsWith('postgres') ? backend.ppid : null;
  } finally {
    await client.end();
  }
}

/** What a postmaster's child does, from its title (`postgres: walwriter`, `postgres: user db host idle`). */
function postgresPart(pid: number): CpuPart {
  const title = commandOf(pid);
  if (/\bwalwriter\b/.test(title)) return 'walWriter';
  if (/checkpointer|background writer|autovacuum|logical replication|archiver|stats collector|walsender|walreceiver/.test(title))
    return 'background';
  return 'backends';
}

function machineTicks(): number {
  // user, nice, system, idle, iowait, irq, softirq, steal: the busy ones.
  const [user, nice, system, , , irq, softirq] = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return user! + nice! + system! + irq! + softirq!;
}

export function cpuSnapshot(server: ChildProcess, postmaster: number | null): Snapshot {
  const all = allProcesses();
  const processes = new Map<number, { part: CpuPart; ticks: number }>();
  for (const pid of [server.pid!, ...workerPids(server)]) processes.set(pid, { part: 'cairn', ticks: all.get(pid)?.ticks ?? 0 });
  if (postmaster !== null) {
    for (const [pid, { ppid, ticks }] of all) if (ppid === postmaster) processes.set(pid, { part: postgresPart(pid), ticks });
  }
  return { processes, machineTicks: machineTicks() };
}

/** CPU seconds by part between two snapshots; a process begun meanwhile counts whole, one ended meanwhile is lost. */
export function cpuBetween(before: Snapshot, after: Snapshot, postgresHere: boolean): CpuByPart {
  const seconds: CpuByPart = {
    cairn: 0,
    backends: postgresHere ? 0 : null,
    walWriter: postgresHere ? 0 : null,
    background: postgresHere ? 0 : null,
    machine: (after.machineTicks - before.machineTicks) / ticksPerSecond,
  };
  for (const [pid, { part, ticks }] of after.processes) {
    const spent = (ticks - (before.processes.get(pid)?.ticks ?? 0)) / ticksPerSecond;
    seconds[part] = (seconds[part] ?? 0) + spent;
  }
  return seconds;
}
