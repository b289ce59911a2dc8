import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';

/**
 * Errors that say the database could not be reached or dropped the connection (a restart, a
 * failover, a network fault), as opposed to errors in what was asked. Requests that meet one
 * answer 503 with Retry-After; the pool reconnects on its own once the server is back.
 */
const CONNECTION_CODES = new Set([
  // Node's socket errors
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // PostgreSQL: shutting down (admin, crash), starting up, connection exceptions, too many connections
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
]);

// pg's own errors for a lost or never-made connection carry no code, only these messages.
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/;

export function isConnectionError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  // Connecting to a name with several addresses fails with one error per address.
  if (error instanceof AggregateError) return error.errors.some(isConnectionError);
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
}

/** The code to log for a connection error: never the message, which may quote a host or user. */
export function connectionErrorCode(error: unknown): string {
  if (error instanceof AggregateError) return connectionErrorCode(error.errors[0]);
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'CONNECTION_LOST';
}

/**
 * Waits for the database at start-up, retrying with exponential backoff (0.25 s doubling to
 * 5 s) for at most `maxSeconds`, logging each failure. A process started beside its database
 * (a container set, a reboot) then serves as soon as it can, instead of dying or hanging.
 */
export async function waitForDatabase<DB>(
  db: Kysely<DB>,
  maxSeconds: number,
  log: (line: string) => void = (line) => console.error(line),
): Promise<void> {
  const deadline = Date.now() + maxSeconds * 1000;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`SELECT 1`.execute(db);
      if (attempt > 1) log(`database reachable after ${attempt} attempts`);
      return;
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      if (Date.now() + delay > deadline) {
        throw new Error(`the database was not reachable within ${maxSeconds} s (${connectionErrorCode(error)})`);
      }
      log(`database not reachable (${connectionErrorCode(error)}); retrying in ${delay} ms`);
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  }
}
