import type { StatementListener } from '../db/database.ts';

/**
 * What the test process's database was sent: the harness hands `recordStatement` to the shared
 * database, and a test that wants the statements its requests send (the route checks, for the
 * router-plan check on Citus) starts a capture: each distinct text once, with the parameters of
 * its first run that succeeded (or of its first run, when none did: the route checks' fuzz sends
 * bytes the server refuses).
 */
/** Each capture, with the texts whose kept parameters are of a run that failed. */
const captures = new Map<Map<string, readonly unknown[]>, Set<string>>();

/** Each count in progress: every statement run, in order, a text again each time it runs. */
const counts = new Set<string[]>();

export const recordStatement: StatementListener = (sql, parameters, failed) => {
  for (const count of counts) count.push(sql);
  for (const [capture, failedOnly] of captures) {
    if (capture.has(sql) && !(failedOnly.has(sql) && !failed)) continue;
    capture.set(sql, parameters);
    if (failed) failedOnly.add(sql);
    else failedOnly.delete(sql);
  }
};

/** Starts recording: the map fills with every distinct statement text sent until it is stopped. */
export function captureStatements(): Map<string, readonly unknown[]> {
  const capture = new Map<string, readonly unknown[]>();
  captures.set(capture, new Set());
  return capture;
}

/** Stops a capture, so what runs next (the EXPLAINs of what it caught) does not join it. */
export function stopCapture(capture: Map<string, readonly unknown[]>): void {
  captures.delete(capture);
}

/**
 * The statements `run` sends, every run of each (a page's statement twice is two): how many
 * statements a request costs, as pg_stat_statements counts them for the bench.
 */
export async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const count: string[] = [];
  counts.add(count);
  try {
    await run();
  } finally {
    counts.delete(count);
  }
  return count;
}
