import { type Kysely, sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { ApiError } from '../../http/errors.ts';

/**
 * 000 limits: more than 100 token requests within 5 minutes blocks the caller for 5 minutes.
 * The window lives in one database row per caller and is updated in a single statement, so the
 * limit holds across every node and worker (DECISIONS §4). Wrong secrets count too, which is
 * what makes guessing one slow.
 */
export async function consumeTokenRequest(
  db: Kysely<DB>,
  tenantId: string,
  principalId: string,
  limit: Config['tokenLimit'],
): Promise<void> {
  const window = sql`make_interval(secs => ${limit.windowSeconds})`;
  const recentInWindow = sql`ARRAY(SELECT t FROM unnest(l.recent) AS t WHERE t > now() - ${window})`;
  const result = await sql<{ blocked_until: Date | null; retry_after: number | null }>`
    INSERT INTO token_limits AS l (tenant_id, principal_id, recent, blocked_until)
    VALUES (${tenantId}, ${principalId}, ARRAY[now()], NULL)
    ON CONFLICT (tenant_id, principal_id) DO UPDATE SET
      recent = CASE
        WHEN l.blocked_until > now() THEN l.recent
        WHEN cardinality(${recentInWindow}) >= ${limit.max} THEN '{}'
        ELSE ${recentInWindow} || now()
      END,
      blocked_until = CASE
        WHEN l.blocked_until > now() THEN l.blocked_until
        WHEN cardinality(${recentInWindow}) >= ${limit.max} THEN now() + make_interval(secs => ${limit.blockSeconds})
        ELSE NULL
      END
    RETURNING blocked_until, ceil(extract(epoch FROM blocked_until - now()))::int AS retry_after
  `.execute(db);
  const row = result.rows[0];
  if (row?.blocked_until && (row.retry_after ?? 0) > 0) {
    const retryAfter = String(row.retry_after);
    throw new ApiError(
      'TOO_MANY_REQUESTS',
      { retryAfterSeconds: row.retry_after, blockedUntil: row.blocked_until.toISOString() },
      `Too many token requests; blocked for ${retryAfter} more seconds`,
      { 'Retry-After': retryAfter },
    );
  }
}
