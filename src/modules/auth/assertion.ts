import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * A SMART Backend Services client assertion (RFC 7523 `private_key_jwt`, as SMART App Launch 2.0
 * profiles it): a JWT the client signs with a private key whose public half it registered, naming
 * itself as issuer and subject and the token endpoint as audience, good for at most five minutes,
 * with a `jti` never used before.
 */

/** The algorithms SMART Backend Services asks servers to support; no others are taken. */
export const ASSERTION_ALGORITHMS = ['RS384', 'ES384'];
/** SMART: an assertion's `exp` is no more than five minutes in the future. */
const MAX_LIFETIME_SECONDS = 5 * 60;

/** The client an assertion says it is from (its `iss`), read before its signature is checked, or undefined. */
export function assertionIssuer(assertion: string): string | undefined {
  try {
    const { iss } = decodeJwt(assertion);
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

export interface AssertionCheck {
  clientKey: string;
  jwks: { keys: Record<string, unknown>[] };
  /** The token endpoint's URLs the audience may name (as the request reached it, and the public one). */
  audiences: string[];
  now: Date;
}

/** Whether the assertion is signed by one of the client's keys and says what SMART asks; why not, if not. */
export async function checkAssertion(
  assertion: string,
  check: AssertionCheck,
): Promise<{ ok: true; jti: string; expiresAt: Date } | { ok: false; why: string }> {
  try {
    const { payload } = await jwtVerify(assertion, createLocalJWKSet(check.jwks as JSONWebKeySet), {
      algorithms: ASSERTION_ALGORITHMS,
      issuer: check.clientKey,
      subject: check.clientKey,
      audience: check.audiences,
      currentDate: check.now,
      requiredClaims: ['exp', 'jti'],
    });
    const exp = payload.exp as number;
    if (exp * 1000 - check.now.getTime() > MAX_LIFETIME_SECONDS * 1000) {
      return { ok: false, why: 'the assertion expires more than five minutes from now' };
    }
    if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 500) {
      return { ok: false, why: 'the assertion has no usable jti' };
    }
    return { ok: true, jti: payload.jti, expiresAt: new Date(exp * 1000) };
  } catch (error) {
    // jose's message says which check failed (signature, audience, expiry), never a secret.
    return { ok: false, why: error instanceof Error ? error.message : 'the assertion is not valid' };
  }
}

/**
 * Keeps the assertion's `jti` until it expires; false when the client used it before (a replay).
 * The client's expired ones go first, in the same shard, so the table holds only live ones.
 */
export async function useAssertionOnce(
  db: Kysely<DB>,
  client: { tenantId: string; id: string },
  used: { jti: string; expiresAt: Date },
  now: Date,
): Promise<boolean> {
  await db
    .deleteFrom('client_assertions')
    .where('tenant_id', '=', client.tenantId)
    .where('client_id', '=', client.id)
    .where('expires_at', '<', now)
    .execute();
  const inserted = await db
    .insertInto('client_assertions')
    .values({ tenant_id: client.tenantId, client_id: client.id, jti: used.jti, expires_at: used.expiresAt })
    .onConflict((conflict) => conflict.columns(['tenant_id', 'client_id', 'jti']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}
