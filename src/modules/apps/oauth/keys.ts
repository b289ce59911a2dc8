import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { uuidv7 } from '../../../db/ids.ts';
import type { DB } from '../../../db/schema.ts';
import type { Sealer } from '../../../providers/sealed.ts';
import type {} from '../tables.ts';

/**
 * The private keys a tenant's authorization servers sign ID tokens with (RS256, which OpenID
 * Connect requires every relying party to accept), sealed at rest. The newest signs; the JWKS lists
 * them all. Rotation is read-driven, so no job fans out over tenants: the first read after the
 * newest key is ROTATE_AFTER_MS old makes a new one, and a key whose successor has signed for
 * RETIRE_AFTER_MS is removed, long after every ID token it signed expired (they live an hour, and
 * a node keeps the keys it read for SERVER_TTL_MS at most: servers.ts).
 */

/** How long a key signs before a new one takes over. */
export const ROTATE_AFTER_MS = 90 * 24 * 60 * 60_000;
/** How long a replaced key stays in the JWKS: a day, well past its last ID token's hour and every node's re-read. */
export const RETIRE_AFTER_MS = 24 * 60 * 60_000;

export async function signingKeys(db: Kysely<DB>, sealer: Sealer, tenantId: string, now: Date): Promise<JWK[]> {
  let stored = await readKeys(db, tenantId);
  const newest = stored[0];
  if (!newest || now.getTime() - newest.created_at.getTime() >= ROTATE_AFTER_MS) {
    await addKey(db, sealer, tenantId, now);
    stored = await readKeys(db, tenantId);
  }
  const [signing, ...older] = stored;
  // A key is kept while the one after it has signed for less than RETIRE_AFTER_MS.
  const retired = older.filter((_, index) => now.getTime() - stored[index]!.created_at.getTime() >= RETIRE_AFTER_MS);
  if (retired.length > 0) {
    const kids = retired.map((row) => row.kid);
    await db.deleteFrom('oauth_keys').where('tenant_id', '=', tenantId).where('kid', 'in', kids).execute();
  }
  const kept = signing ? [signing, ...older.filter((row) => !retired.includes(row))] : [];
  return kept.map((row) => sealer.open(row.sealed) as JWK | null).filter((jwk): jwk is JWK => jwk !== null);
}

async function addKey(db: Kysely<DB>, sealer: Sealer, tenantId: string, now: Date): Promise<void> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = uuidv7();
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  // Two nodes rotating at once each add one: both are listed, the newest signs, the other retires.
  await db
    .insertInto('oauth_keys')
    .values({ tenant_id: tenantId, kid, sealed: sealer.seal(jwk), created_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The tenant's keys, newest first. */
const readKeys = (db: Kysely<DB>, tenantId: string) =>
  db
    .selectFrom('oauth_keys')
    .select(['kid', 'sealed', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
