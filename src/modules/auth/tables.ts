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

declare module '../../db/schema.ts' {
  interface DB {
    token_limits: TokenLimitsTable;
  }
}
