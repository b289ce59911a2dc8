import { type Kysely, sql } from 'kysely';
import type { DatabaseKind } from './database.ts';

/**
 * Writes still in flight, as readers of "what changed since" (the bulk export) need them: a record
 * is stamped with its write's instant before it commits, so a reader that passes an instant while
 * a write stamped earlier is still open would never see that write.
 *
 * On PostgreSQL a write transaction names itself in `application_name` for its duration (SET
 * LOCAL: PostgreSQL drops it at commit or rollback, before the client hears the outcome), in the
 * same round trip as its BEGIN: `cairn:w:<tenant id>:<instant in ms>`. Any node reads the open
 * ones of a tenant from `pg_stat_activity` (every node connects through one server, a Citus
 * cluster's coordinator included). On PGlite writes are serialised on its one connection and
 * stamped once they hold it, so nothing is ever in flight beside a read.
 */

const PREFIX = 'cairn:w:';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The BEGIN of a write of `tenantId` stamped `at`: one simple-protocol round trip. */
export function beginWrite(kind: DatabaseKind, tenantId: string, at: Date): string {
  if (kind === 'pglite') return 'BEGIN';
  // Inlined, not bound (a simple query takes no parameters): both are checked to be what they say.
  if (!uuid.test(tenantId) || !Number.isSafeInteger(at.getTime())) throw new Error('a write needs a tenant id and an instant');
  return `BEGIN; SET LOCAL application_name = '${PREFIX}${tenantId}:${at.getTime()}'`;
}

/** The instant of the oldest write of the tenant still in flight, or null when there is none (always on PGlite). */
export async function oldestWriteInFlight<DB>(db: Kysely<DB>, kind: DatabaseKind, tenantId: string): Promise<Date | null> {
  if (kind === 'pglite') return null;
  const { rows } = await sql<{ since: number | null }>`
    SELECT min(split_part(application_name, ':', 4)::bigint) AS since
    FROM pg_stat_activity
    WHERE application_name LIKE ${`${PREFIX}${tenantId}:%`}`.execute(db);
  const since = rows[0]?.since;
  return since === null || since === undefined ? null : new Date(Number(since));
}
