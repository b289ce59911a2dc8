import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isConnectionError } from '../db/availability.ts';

/**
 * Writes what became of a run (its job's end, a delivery's outcome), trying again while the
 * database is unreachable: 0.1 s doubling to 2 s, for at most `withinMs` (well within the lease,
 * which the worker keeps renewing meanwhile). A run whose end is never written runs again after
 * its lease (at least once); retrying makes that rarer. Each statement retried is safe to repeat:
 * a job's end is guarded by its attempt, an outcome by its attempt's id.
 */
export async function recordOutcome<T>(write: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await write();
    } catch (error) {
      if (!isConnectionError(error) || performance.now() + delay > deadline) throw error;
      await sleep(delay);
    }
  }
}

/** How long a run's end may be retried: half its lease, at most 30 s. */
export function recordingWindow(leaseMs: number): number {
  return Math.min(leaseMs / 2, 30_000);
}
