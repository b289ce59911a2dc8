import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { DB } from '../../../db/schema.ts';
import type { Sealer } from '../../../providers/sealed.ts';
import type {} from '../tables.ts';

/**
 * The private keys a tenant's authorization servers sign ID tokens with (RS256, which OpenID
 * Connect requires every relying party to accept), sealed at rest. The first is made when first
 * needed; every key stays in the JWKS, so a key added later (rotation) leaves tokens signed by the
 * older ones verifiable. The newest signs.
 */
export async function signingKeys(db: Kysely<DB>, sealer: Sealer, tenantId: string, now: Date): Promise<JWK[]> {
  const stored = await readKeys(db, sealer, tenantId);
  if (stored.length > 0) return stored;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = uuidv7();
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  // Two nodes making the first key at once: both keep whichever rows landed.
  await db
    .insertInto('oauth_keys')
    .values({ tenant_id: tenantId, kid, sealed: sealer.seal(jwk), created_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return readKeys(db, sealer, tenantId);
}

async function readKeys(db: Kysely<DB>, sealer: Sealer, tenantId: string): Promise<JWK[]> {
  const rows = await db
    .selectFrom('oauth_keys')
    .select(['sealed'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((row) => sealer.open(row.sealed)).filter((jwk): jwk is JWK => jwk !== null);
}
