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

/** A user's TOTP factor (mfa.ts): unconfirmed until the user sends a code from it. */
export interface UserMfaTable {
  tenant_id: string;
  user_id: string;
  /** The base32 secret, sealed (providers/sealed.ts). */
  totp_sealed: string;
  confirmed_at: Date | null;
  /** The last time step a code was taken at: a code of that step or an earlier one is refused. */
  last_step: number | null;
}

/** A user's recovery codes, as SHA-256 hashes; each works once. */
export interface UserRecoveryCodesTable {
  tenant_id: string;
  user_id: string;
  code_hash: string;
  used_at: Date | null;
}

/** A tenant's sign-in policy (migration 0050): none is the default, nothing required. */
export interface SignInPoliciesTable {
  tenant_id: string;
  mfa_required: boolean;
  updated_at: Date;
}

declare module '../../db/schema.ts' {
  interface DB {
    token_limits: TokenLimitsTable;
    client_assertions: ClientAssertionsTable;
    user_mfa: UserMfaTable;
    user_recovery_codes: UserRecoveryCodesTable;
    sign_in_policies: SignInPoliciesTable;
  }
}
