/**
 * The servers' memory as the bench reports it: the resident memory (RSS) of each process of a
 * server (its primary and the workers it forked), read from /proc, and the heap settings its
 * workers run with (the V8 flags on their command line and in NODE_OPTIONS), so a result says
 * which settings its figures were measured under.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** The program a process runs (its /proc exe link), or null once it is gone. */
function programOf(pid: number): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/**
 * The workers a primary forked (node:cluster), by pid; none when the server is one process. Only
 * children running the primary's own program count: tsx's esbuild service is a child too.
 */
export function workerPids(primary: ChildProcess): number[] {
  try {
    const program = programOf(primary.pid!);
    return execFileSync('pgrep', ['-P', String(primary.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => program === null || programOf(pid) === program)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

/** A process's resident memory in MB, or null once it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    try {
      return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024 || null;
    } catch {
      return null;
    }
  }
}

/** Each worker's RSS now, by pid (the primary's own when it forked none). */
export function workersRss(primary: ChildProcess): Map<number, number> {
  const pids = workerPids(primary);
  const sampled = new Map<number, number>();
  for (const pid of pids.length > 0 ? pids : [primary.pid!]) {
    const mb = rssMb(pid);
    if (mb !== null) sampled.set(pid, mb);
  }
  return sampled;
}

/** The highest RSS of each worker while `during` runs, sampled every 300 ms. */
export async function peakMemory<T>(
  primary: ChildProcess,
  during: () => Promise<T>,
): Promise<{ value: T; peakMb: number; byWorker: Map<number, number> }> {
  const byWorker = new Map<number, number>();
  const sample = () => {
    for (const [pid, mb] of workersRss(primary)) byWorker.set(pid, Math.max(byWorker.get(pid) ?? 0, mb));
  };
  const timer = setInterval(sample, 300);
  try {
    const value = await during();
    sample();
    return { value, peakMb: Math.max(0, ...byWorker.values()), byWorker };
  } finally {
    clearInterval(timer);
  }
}

/** Flags that size or steer V8's heap. */
const HEAP_FLAG = /^--(max|min|initial)-(old|semi|young)-space-size|^--(max|initial)-heap-size|^--optimize-for-size/;

/** The heap settings a process runs with: the heap flags on its command line, and those in its NODE_OPTIONS. */
export function heapSettings(pid: number | undefined): { flags: string[]; nodeOptions: string[] } {
  const read = (file: string) => {
    try {
      return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter(Boolean);
    } catch {
      return [];
    }
  };
  const nodeOptions = (
    read('environ')
      .find((entry) => entry.startsWith('NODE_OPTIONS='))
      ?.slice('NODE_OPTIONS='.length) ?? ''
  )
    .split(/\s+/)
    .filter((flag) => HEAP_FLAG.test(flag));
  return { flags: read('cmdline').filter((arg) => HEAP_FLAG.test(arg)), nodeOptions };
}

export function describeHeapSettings(settings: { flags: string[]; nodeOptions: string[] }): string {
  const parts = [
    ...(settings.flags.length > 0 ? [settings.flags.map((flag) => `\`${flag}\``).join(' ')] : []),
    ...(settings.nodeOptions.length > 0 ? [`NODE_OPTIONS ${settings.nodeOptions.map((flag) => `\`${flag}\``).join(' ')}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : "none (V8's defaults)";
}
