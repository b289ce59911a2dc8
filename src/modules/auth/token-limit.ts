import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { ApiError } from '../../wire/errors.ts';
import type { TokenLimit } from './settings.ts';

/** Whose token requests are counted: an API client or a user. */
export interface TokenSubject {
  tenantId: string;
  principalId: string;
}

const NIL = '00000000-0000-0000-0000-000000000000';
/** Keys and usernames that name nobody: their failures are still counted, per source address. */
const UNKNOWN_SUBJECT: TokenSubject = { tenantId: NIL, principalId: NIL };

/**
 * Two limits, each a sliding window in one database row updated by a single statement, so they
 * hold across every node and worker (DECISIONS §4). Times are the services' clock's, passed in
 * (Citus refuses `now()` in an upsert's SET and RETURNING; nodes' clocks agree well within a window):
 * - 000's limit, per caller: more than 100 token requests within 5 minutes that present the right
 *   secret block the caller for 5 minutes (source '').
 * - Wrong secrets, per caller and source address: after `failures` of them within the window,
 *   that address is blocked for that caller for the block time. Guessing stays slow, and someone
 *   who knows a client's key cannot lock the real client out from elsewhere.
 */
async function consumeTokenRequest(db: Kysely<DB>, subject: TokenSubject, limit: TokenLimit, now: Date): Promise<void> {
  const retryAfter = await consume(db, subject, '', limit.max, limit, now);
  if (retryAfter > 0) throw tooManyRequests(retryAfter, 'Too many token requests');
}

/** Refuses, before any secret is checked, a source blocked for this caller by its wrong secrets. */
async function assertSourceNotBlocked(db: Kysely<DB>, subject: TokenSubject, source: string, now: Date): Promise<void> {
  const row = await db
    .selectFrom('token_limits')
    .select(sql<number>`ceil(extract(epoch FROM blocked_until - ${now}::timestamptz))::int`.as('retry_after'))
    .where('tenant_id', '=', subject.tenantId)
    .where('principal_id', '=', subject.principalId)
    .where('source', '=', source)
    .where('blocked_until', '>', now)
    .executeTakeFirst();
  if (row && row.retry_after > 0) throw tooManyRequests(row.retry_after, 'Too many wrong secrets from this address');
}

/** Counts one wrong secret from `source`; the attempt that reaches the limit starts the block. */
async function recordWrongSecret(
  db: Kysely<DB>,
  subject: TokenSubject,
  source: string,
  limit: TokenLimit,
  now: Date,
): Promise<void> {
  await consume(db, subject, source, limit.failures, limit, now);
  // Rows of addresses that have gone quiet would otherwise pile up, one per address ever seen.
  await db
    .deleteFrom('token_limits')
    .where('tenant_id', '=', subject.tenantId)
    .where('principal_id', '=', subject.principalId)
    .where('source', '<>', '')
    .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<', now)]))
    .where(sql<boolean>`cardinality(cairn_times_after(recent, ${windowStart(now, limit)}::timestamptz)) = 0`)
    .execute();
}

/**
 * One sign-in attempt, in the order that keeps both limits honest: a source blocked for this caller
 * is refused before any secret is checked; a wrong secret (or signature) counts against that
 * source only; a right one counts against the caller's own limit of 000. An unknown caller's
 * failures count against the source, under UNKNOWN_SUBJECT.
 */
export async function checkedAttempt(
  db: Kysely<DB>,
  limit: TokenLimit,
  now: Date,
  attempt: { subject: TokenSubject | undefined; source: string; matches: () => Promise<boolean> },
): Promise<boolean> {
  const { subject, source, matches } = attempt;
  await assertSourceNotBlocked(db, subject ?? UNKNOWN_SUBJECT, source, now);
  if (!(await matches())) {
    await recordWrongSecret(db, subject ?? UNKNOWN_SUBJECT, source, limit, now);
    return false;
  }
  if (subject) await consumeTokenRequest(db, subject, limit, now);
  return true;
}

/** Adds one request to the window; answers the seconds left of a block (0 when not blocked). */
async function consume(
  db: Kysely<DB>,
  subject: TokenSubject,
  source: string,
  max: number,
  limit: TokenLimit,
  now: Date,
): Promise<number> {
  const at = sql`${now}::timestamptz`;
  // A function, not a sub-query: Citus refuses sub-queries in an INSERT (migration 0026).
  const recentInWindow = sql`cairn_times_after(l.recent, ${windowStart(now, limit)}::timestamptz)`;
  const blockedUntil = new Date(now.getTime() + limit.blockSeconds * 1000);
  const result = await sql<{ retry_after: number | null }>`
    INSERT INTO token_limits AS l (tenant_id, principal_id, source, recent, blocked_until)
    VALUES (${subject.tenantId}, ${subject.principalId}, ${source}, ARRAY[${at}], NULL)
    ON CONFLICT (tenant_id, principal_id, source) DO UPDATE SET
      recent = CASE
        WHEN l.blocked_until > ${at} THEN l.recent
        WHEN cardinality(${recentInWindow}) >= ${max} THEN '{}'
        ELSE ${recentInWindow} || ${at}
      END,
      blocked_until = CASE
        WHEN l.blocked_until > ${at} THEN l.blocked_until
        WHEN cardinality(${recentInWindow}) >= ${max} THEN ${blockedUntil}::timestamptz
        ELSE NULL
      END
    RETURNING ceil(extract(epoch FROM blocked_until - ${at}))::int AS retry_after
  `.execute(db);
  return Math.max(0, result.rows[0]?.retry_after ?? 0);
}

function windowStart(now: Date, limit: TokenLimit): Date {
  return new Date(now.getTime() - limit.windowSeconds * 1000);
}

function tooManyRequests(retryAfter: number, message: string): ApiError {
  return new ApiError(
    'TOO_MANY_REQUESTS',
    { retryAfterSeconds: retryAfter },
    `${message}; blocked for ${retryAfter} more seconds`,
    { 'Retry-After': String(retryAfter) },
  );
}
