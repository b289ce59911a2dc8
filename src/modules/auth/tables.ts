import type { Generated } from 'kysely';

/** The auth area's tables, merged into the database's `DB` type. */

export interface TokenLimitsTable {
  tenant_id: string;
  principal_id: string;
  /** '' for the caller's own limit; the source address for its wrong secrets. */
  source: Generated<string>;
  recent: Date[];
  blocked_until: Date | null;
}

/** A SMART Backend Services assertion's `jti`, kept until the assertion expires: each is good once. */
export interface ClientAssertionsTable {
  tenant_id: string;
  client_id: string;
  jti: string;
  expires_at: Date;
}

declare module '../../db/schema.ts' {
  interface DB {
    token_limits: TokenLimitsTable;
    client_assertions: ClientAssertionsTable;
  }
}
