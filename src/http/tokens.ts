import { errors, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Caller } from '../tenancy/access.ts';
import { ApiError } from '../wire/errors.ts';

/** 000: a token is valid for one hour. */
export const TOKEN_LIFETIME_SECONDS = 60 * 60;
const ISSUER = 'cairn';
const AUDIENCE = 'cairn-api';

/** Cairn's own tokens are JWTs (three dot-separated parts); anything else is an opaque token. */
const JWT_SHAPE = /^[^.]*\.[^.]*\.[^.]*$/;
// Asked on every request: a match splits nothing (no three strings and an array to collect).
export const isCairnToken = (token: string) => JWT_SHAPE.test(token);

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/** Signs and checks bearer tokens: HS256 JWTs whose key every node shares through the database. */
export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Tokens already checked, until they expire. A token is an immutable signed string that a
   * client reuses for an hour, so checking its signature once per node is enough; this keeps
   * the HMAC (WebCrypto, ~5% of a request's CPU) off the hot path.
   */
  private readonly verified = new LRUCache<string, { caller: Caller; expiresAt: number }>({ max: 50_000 });

  constructor(
    secret: string,
    private readonly clock: { now(): Date },
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(caller: Caller): Promise<IssuedToken> {
    const issuedAt = Math.floor(this.clock.now().getTime() / 1000);
    const expiresAt = issuedAt + TOKEN_LIFETIME_SECONDS;
    const claims = { tid: caller.tenantId, typ: caller.type, nam: caller.name };
    const token = await new SignJWT(caller.scopes ? { ...claims, scope: caller.scopes.join(' ') } : claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(caller.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.key);
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /** DECISIONS §2: an expired token is TOKEN_EXPIRED; anything else wrong is NOT_VALID_JSON_WEB_TOKEN. */
  async verify(token: string): Promise<Caller> {
    const now = this.clock.now();
    const known = this.verified.get(token);
    if (known && known.expiresAt > now.getTime()) return known.caller;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: now,
      });
      const { sub, tid, typ, nam, scope } = payload;
      if (typeof sub !== 'string' || typeof tid !== 'string' || (typ !== 'API_CLIENT' && typ !== 'USER')) {
        throw new ApiError('NOT_VALID_JSON_WEB_TOKEN');
      }
      const caller: Caller = { id: sub, tenantId: tid, type: typ, name: typeof nam === 'string' ? nam : '' };
      // A SMART token's scopes (http/scopes.ts): they narrow what the caller's roles allow.
      if (typeof scope === 'string') caller.scopes = scope.split(' ').filter(Boolean);
      // Kept until the token's own expiry, after which the cache forgets it and jose says TOKEN_EXPIRED.
      const expiresAt = typeof payload.exp === 'number' ? payload.exp * 1000 : 0;
      const ttl = expiresAt - now.getTime();
      if (ttl > 0) this.verified.set(token, { caller, expiresAt }, { ttl });
      return caller;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new ApiError('TOKEN_EXPIRED');
      throw new ApiError('NOT_VALID_JSON_WEB_TOKEN');
    }
  }
}
