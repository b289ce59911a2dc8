import { randomUUID } from 'node:crypto';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { DB, Json, Timestamp } from '../db/schema.ts';

/** The idempotency keys' table (migration 0024), merged into the database's `DB` type. */
export interface IdempotencyKeysTable {
  tenant_id: string;
  caller_id: string;
  key: string;
  /** sha256 of the request: method, path and query, caller, body. */
  fingerprint: string;
  claim_id: string;
  started_at: Timestamp;
  /** Set in the transaction of the request's write: from then on the request must not run again. */
  committed_at: Timestamp | null;
  status_code: number | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: Uint8Array | null;
  expires_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface DB {
    idempotency_keys: IdempotencyKeysTable;
  }
}

/** A key this request holds: the unit of work marks it committed with the write. */
export interface IdempotencyClaim {
  tenantId: string;
  callerId: string;
  key: string;
  claimId: string;
}

/** Keys are kept a day (the IETF draft and Stripe): a retry later than that is a new request. */
export const KEY_LIFETIME_MS = 24 * 60 * 60_000;
/**
 * A claim not committed after this long belonged to a request that died (a node stopped mid-write):
 * a retry may take the key over. Far above any request's run, a 100 MB upload's included.
 */
export const CLAIM_LEASE_MS = 5 * 60_000;

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; status: number; headers: Record<string, string>; body: Buffer }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  /** Committed, but the node stopped before storing the answer: the write happened, its answer is gone. */
  | { kind: 'lost' };

const keyOf = (db: Kysely<DB>, claim: Omit<IdempotencyClaim, 'claimId'>) =>
  db
    .selectFrom('idempotency_keys')
    .where('tenant_id', '=', claim.tenantId)
    .where('caller_id', '=', claim.callerId)
    .where('key', '=', claim.key);

/**
 * Takes the key for this request (a new key, an expired one, or a dead request's claim), or says
 * what the key holds: another request's answer, a different request, or one still running.
 */
export async function claimKey(
  db: Kysely<DB>,
  key: Omit<IdempotencyClaim, 'claimId'>,
  fingerprint: string,
  now: Date,
): Promise<ClaimOutcome> {
  const claimId = randomUUID();
  const leaseEnded = new Date(now.getTime() - CLAIM_LEASE_MS);
  const taken = await db
    .insertInto('idempotency_keys')
    .values({
      tenant_id: key.tenantId,
      caller_id: key.callerId,
      key: key.key,
      fingerprint,
      claim_id: claimId,
      started_at: now,
      expires_at: new Date(now.getTime() + KEY_LIFETIME_MS),
    })
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'caller_id', 'key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          claim_id: eb.ref('excluded.claim_id'),
          started_at: eb.ref('excluded.started_at'),
          expires_at: eb.ref('excluded.expires_at'),
          committed_at: null,
          status_code: null,
          response_headers: null,
          response_body: null,
        }))
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', now),
            eb.and([
              eb('idempotency_keys.committed_at', 'is', null),
              eb('idempotency_keys.status_code', 'is', null),
              eb('idempotency_keys.started_at', '<', leaseEnded),
              eb('idempotency_keys.fingerprint', '=', eb.ref('excluded.fingerprint')),
            ]),
          ]),
        ),
    )
    .returning('claim_id')
    .executeTakeFirst();
  if (taken?.claim_id === claimId) return { kind: 'claimed', claim: { ...key, claimId } };

  const held = await keyOf(db, key)
    .select(['fingerprint', 'started_at', 'committed_at', 'status_code', 'response_headers', 'response_body'])
    .executeTakeFirst();
  // Expired and removed between the two statements: the key is free again.
  if (!held) return claimKey(db, key, fingerprint, now);
  if (held.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (held.status_code !== null) {
    return {
      kind: 'replay',
      status: held.status_code,
      headers: held.response_headers ?? {},
      body: Buffer.from(held.response_body ?? new Uint8Array()),
    };
  }
  if (held.committed_at && new Date(held.started_at) < leaseEnded) return { kind: 'lost' };
  return { kind: 'running' };
}

/** The key's row while this claim holds it (one taken over from a dead request is no longer its). */
const heldBy = (claim: IdempotencyClaim) => (eb: ExpressionBuilder<DB, 'idempotency_keys'>) =>
  eb.and({ tenant_id: claim.tenantId, caller_id: claim.callerId, key: claim.key, claim_id: claim.claimId });

/** The statement a write adds to its transaction: the key's request has now changed something. */
export function markCommitted(db: Kysely<DB>, claim: IdempotencyClaim, now: Date) {
  return db.updateTable('idempotency_keys').set({ committed_at: now }).where(heldBy(claim));
}

/**
 * Keeps the request's answer for its retries. A failed request whose write rolled back (or that
 * wrote nothing) frees its key instead, so a corrected retry under the same key runs.
 */
export async function settleKey(
  db: Kysely<DB>,
  claim: IdempotencyClaim,
  answer: { status: number; headers: Record<string, string>; body: Buffer },
): Promise<void> {
  if (answer.status >= 400) {
    const freed = await db
      .deleteFrom('idempotency_keys')
      .where(heldBy(claim))
      .where('committed_at', 'is', null)
      .executeTakeFirst();
    if (freed.numDeletedRows > 0n) return;
  }
  await db
    .updateTable('idempotency_keys')
    .set({
      // A request that answered without a write (a search) committed nothing, but is answered all the same.
      committed_at: sql`coalesce(committed_at, started_at)`,
      status_code: answer.status,
      response_headers: JSON.stringify(answer.headers),
      response_body: answer.body,
    })
    .where(heldBy(claim))
    .execute();
}

/** Frees a claim whose request ended without an answer to keep (a stream): a retry runs again unless it committed. */
export async function releaseKey(db: Kysely<DB>, claim: IdempotencyClaim): Promise<void> {
  await db.deleteFrom('idempotency_keys').where(heldBy(claim)).where('committed_at', 'is', null).execute();
}

/** The expiry job: removes a slice of keys past their day; returns how many (a drain goes on while it removes). */
export async function removeExpiredKeys(db: Kysely<DB>, now: Date, limit = 5_000): Promise<number> {
  const result = await sql<{ removed: number }>`
    WITH expired AS (
      SELECT tenant_id, caller_id, key FROM idempotency_keys WHERE expires_at <= ${now} LIMIT ${limit}
    )
    DELETE FROM idempotency_keys k USING expired e
    WHERE k.tenant_id = e.tenant_id AND k.caller_id = e.caller_id AND k.key = e.key`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
