import { importJWK, type JWK } from 'jose';
import { type FieldError, validationError } from '../../wire/errors.ts';
import type { JwksBody } from './schemas.ts';

/** The private members of RSA and EC keys (RFC 7518 §6): a registered key must have none. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'];
/** RS384 with a key under 2048 bits is refused by the verifier anyway: refused here first, with why. */
const MIN_RSA_BYTES = 256;

/**
 * A key set as a client registers it: each key public, usable for RS384 (RSA of 2048 bits or more)
 * or ES384 (EC P-384), its kid unique, so an assertion's header finds one key (400 naming each
 * key that is not).
 */
export async function checkedJwks(jwks: JwksBody): Promise<JwksBody> {
  const problems: FieldError[] = [];
  const kids = new Set<string>();
  for (const [index, key] of jwks.keys.entries()) {
    const path = `body.jwks.keys.${index}`;
    const why = await problemOf(key as JWK & { kid: string });
    if (why) problems.push({ path, message: why });
    if (kids.has(key.kid)) problems.push({ path: `${path}.kid`, message: 'is the kid of another key of the set' });
    kids.add(key.kid);
  }
  if (problems.length > 0) throw validationError(problems);
  return jwks;
}

async function problemOf(key: JWK & { kid: string }): Promise<string | undefined> {
  if (PRIVATE_MEMBERS.some((member) => member in key)) return 'is a private key: register the public key only';
  const alg = key.kty === 'RSA' ? 'RS384' : 'ES384';
  if (key.alg !== undefined && key.alg !== alg) return `a ${key.kty} key signs ${alg} here, not ${key.alg}`;
  if (key.kty === 'EC' && key.crv !== 'P-384') return 'an EC key must be on curve P-384 (ES384)';
  if (key.kty === 'RSA' && Buffer.from(String(key.n ?? ''), 'base64url').length < MIN_RSA_BYTES) {
    return 'an RSA key must have 2048 bits or more';
  }
  try {
    await importJWK(key, alg);
    return undefined;
  } catch {
    return `is not a usable ${alg} public key`;
  }
}
