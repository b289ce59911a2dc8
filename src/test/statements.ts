import type { StatementListener } from '../db/database.ts';

/**
 * What the test process's database was sent: the harness hands `recordStatement` to the shared
 * database, and a test that wants the statements its requests send (the route checks, for the
 * router-plan check on Citus) starts a capture: each distinct text once, with its first parameters.
 */
const captures = new Set<Map<string, readonly unknown[]>>();

export const recordStatement: StatementListener = (sql, parameters) => {
  for (const capture of captures) if (!capture.has(sql)) capture.set(sql, parameters);
};

/** Starts recording: the map fills with every distinct statement text sent from now on. */
export function captureStatements(): Map<string, readonly unknown[]> {
  const capture = new Map<string, readonly unknown[]>();
  captures.add(capture);
  return capture;
}
