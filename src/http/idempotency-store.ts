import { type Kysely, sql } from 'kysely';
import { crossTenant } from '../db/cross-tenant.ts';
import type { DB, Json, Timestamp } from '../db/schema.ts';
import { PREPARED } from '../db/sql.ts';
import { violationOf } from '../db/violations.ts';

/** The idempotency keys' table (migration 0024), merged into the database's `DB` type. */
export interface IdempotencyKeysTable {
  tenant_id: string;
  caller_id: string;
  key: string;
  /** sha256 of the request: method, path and query, caller, body. */
  fingerprint: string;
  /** The request whose write committed the row (IdempotencyClaim.claimId). */
  claim_id: string;
  started_at: Timestamp;
  /** When the request's write committed the row (a request that wrote nothing: when its answer was kept). */
  committed_at: Timestamp | null;
  status_code: number | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: Uint8Array | null;
  /** What the kept answer showed, for the access log's record of a replay (migration 0043). */
  answer_shows: Json<AnswerShows> | null;
  expires_at: Timestamp;
}

/**
 * The patients and records an answer showed as the access log named them when it was first sent:
 * kept with the answer, so its replays are recorded alike (the handler that named them may not run
 * to that point again, and a page's matches are not in its JSON).
 */
export interface AnswerShows {
  patients: string[];
  records: string[];
}

declare module '../db/schema.ts' {
  interface DB {
    idempotency_keys: IdempotencyKeysTable;
  }
}

/**
 * The key a request carries. Nothing is stored for it until the request's first write commits: that
 * write inserts the key's row in its own statement (`keyRow`), so the key and the write commit or
 * roll back together, and a second request under the key cannot write (the row's primary key).
 */
export interface IdempotencyClaim {
  tenantId: string;
  callerId: string;
  key: string;
  /** sha256 of the request: method, path and query, caller, body. */
  fingerprint: string;
  /** This request's mark on the row, so it settles only a row its own write made. */
  claimId: string;
  /** Set once the request's first write has committed the key's row; later writes add nothing. */
  written: boolean;
}

/** Keys are kept a day (the IETF draft and Stripe): a retry later than that is a new request. */
export const KEY_LIFETIME_MS = 24 * 60 * 60_000;
/**
 * A key committed this long ago without an answer belonged to a request whose node stopped between
 * its write and its answer: the write happened, the answer is gone. Far above any request's run,
 * a 100 MB upload's included.
 */
export const ANSWER_LEASE_MS = 5 * 60_000;

/** What a key another request holds says of a request under it. */
export type HeldKey =
  | { kind: 'replay'; status: number; headers: Record<string, string>; body: Buffer; shows: AnswerShows | null }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  /** Committed, but the node stopped before storing the answer: the write happened, its answer is gone. */
  | { kind: 'lost' };

/** The key's row, committed by the write that carries it: one more insert in that write's own statement. */
export function keyRow(db: Kysely<DB>, claim: IdempotencyClaim, now: Date) {
  return db.insertInto('idempotency_keys').values(keyValues(claim, now));
}

function keyValues(claim: IdempotencyClaim, now: Date) {
  return {
    tenant_id: claim.tenantId,
    caller_id: claim.callerId,
    key: claim.key,
    fingerprint: claim.fingerprint,
    claim_id: claim.claimId,
    started_at: now,
    committed_at: now,
    expires_at: new Date(now.getTime() + KEY_LIFETIME_MS),
  };
}

/** Whether a failed write failed on its key's row: another request's, or an expired one still there. */
export function isKeyTaken(error: unknown): boolean {
  const violation = violationOf(error);
  return violation?.code === '23505' && violation.constraint === 'idempotency_keys_pkey';
}

/**
 * Removes the key's row if it has expired (the expiry job had not come yet), so the write that met
 * it can run as the key's first request; answers whether it did.
 */
export async function freeExpiredKey(db: Kysely<DB>, claim: IdempotencyClaim, now: Date): Promise<boolean> {
  const freed = await db
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', claim.tenantId)
    .where('caller_id', '=', claim.callerId)
    .where('key', '=', claim.key)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return freed.numDeletedRows > 0n;
}

/** What another request's live key says of this one; undefined when the key is free. */
export async function heldKey(db: Kysely<DB>, claim: IdempotencyClaim, now: Date): Promise<HeldKey | undefined> {
  const held = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'claim_id', 'committed_at', 'status_code', 'response_headers', 'response_body', 'answer_shows'])
    .where('tenant_id', '=', claim.tenantId)
    .where('caller_id', '=', claim.callerId)
    .where('key', '=', claim.key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!held || held.claim_id === claim.claimId) return undefined;
  if (held.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
  if (held.status_code !== null) {
    return {
      kind: 'replay',
      status: held.status_code,
      headers: held.response_headers ?? {},
      body: Buffer.from(held.response_body ?? new Uint8Array()),
      shows: held.answer_shows,
    };
  }
  const lease = new Date(now.getTime() - ANSWER_LEASE_MS);
  return held.committed_at && new Date(held.committed_at) < lease ? { kind: 'lost' } : { kind: 'running' };
}

export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  shows: AnswerShows | null;
}

/** Keeps the answer of a request whose write committed the key, for its retries. */
export async function keepAnswer(db: Kysely<DB>, claim: IdempotencyClaim, answer: KeptAnswer): Promise<void> {
  await sql`${sql.raw(PREPARED)}
    UPDATE idempotency_keys SET status_code = ${answer.status}, response_headers = ${JSON.stringify(answer.headers)}::jsonb,
      response_body = ${answer.body}, answer_shows = ${answer.shows && JSON.stringify(answer.shows)}::jsonb
    WHERE tenant_id = ${claim.tenantId} AND caller_id = ${claim.callerId} AND key = ${claim.key} AND claim_id = ${claim.claimId}`.execute(
    db,
  );
}

/**
 * Keeps the answer of a request that wrote nothing (a search sent as POST), unless another request
 * holds the key; answers whether it was kept.
 */
export async function keepUnwrittenAnswer(
  db: Kysely<DB>,
  claim: IdempotencyClaim,
  answer: KeptAnswer,
  now: Date,
): Promise<boolean> {
  const kept = await db
    .insertInto('idempotency_keys')
    .values({
      ...keyValues(claim, now),
      status_code: answer.status,
      response_headers: JSON.stringify(answer.headers),
      response_body: answer.body,
      answer_shows: answer.shows && JSON.stringify(answer.shows),
    })
    .onConflict((conflict) => conflict.columns(['tenant_id', 'caller_id', 'key']).doNothing())
    .returning('claim_id')
    .executeTakeFirst();
  return kept !== undefined;
}

/**
 * The expiry job: removes every tenant's keys past their day, in one statement (on Citus each
 * shard removes its own, in parallel); answers how many. It runs every 10 minutes, so a run
 * removes about 10 minutes' keys.
 */
export async function removeExpiredKeys(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await sql`${sql.raw(crossTenant('idempotency-expiry'))}
    DELETE FROM idempotency_keys WHERE expires_at <= ${now}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Kept answers that name a purged patient (their id, a phone number or email address) go: a
 * replay would send their data again. The key goes with its answer; a retry under it runs as new.
 */
export async function forgetAnswersNaming(db: Kysely<DB>, tenantId: string, terms: readonly string[]): Promise<void> {
  if (terms.length === 0) return;
  // In the answer's bytes, or among the patients it showed (a `named` route's answer may not hold the id).
  const names = terms.map(
    (term) =>
      sql<boolean>`(position(convert_to(${term}, 'UTF8') in response_body) > 0 OR answer_shows -> 'patients' @> to_jsonb(${term}::text))`,
  );
  await db
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', tenantId)
    .where(sql<boolean>`(${sql.join(names, sql` OR `)})`)
    .execute();
}
