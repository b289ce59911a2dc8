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

/** Each run of every statement, while a count is on (`statementsSent`): how many a request sends. */
const counts = new Set<string[]>();
/**
 * A notification is a process's word to the other nodes (job wake-ups, cache clears), sent on its
 * own timer up to half a second after the write that asked: not a statement of a request counted
 * later (a read sends none), so a count leaves it out.
 */
const NOTIFICATION = /^\s*SELECT pg_notify\(/;
const counting: StatementListener = (sql) => {
  if (NOTIFICATION.test(sql)) return;
  for (const count of counts) count.push(sql);
};

export const recordStatement: StatementListener = (sql, parameters, failed) => {
  counting(sql, parameters, failed);
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
 * Every statement `work` sends, in order, one text per run (a capture keeps each text once): a
 * test asserts a route's count, so it cannot creep back up. Nothing else may run meanwhile.
 */
export async function statementsSent(work: () => Promise<unknown>): Promise<string[]> {
  const count: string[] = [];
  counts.add(count);
  try {
    await work();
  } finally {
    counts.delete(count);
  }
  return count;
}
