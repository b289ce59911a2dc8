import type { Json, WithDefault } from '../../db/schema.ts';

/** The apps area's tables, merged into the database's `DB` type. */

export type AppClientType = 'PUBLIC' | 'CONFIDENTIAL_SYMMETRIC' | 'CONFIDENTIAL_ASYMMETRIC';
export type LaunchKind = 'STANDALONE' | 'EHR';

export interface SmartAppsTable {
  tenant_id: string;
  id: string;
  /** The OAuth `client_id` apps send: random, made by the server. */
  client_id: string;
  name: string;
  client_type: AppClientType;
  /** A confidential-symmetric app's secret, sealed (the authorization server compares it as given). */
  secret_sealed: string | null;
  jwks: Json<unknown> | null;
  jwks_uri: string | null;
  redirect_uris: string[];
  /** The scopes the app may be granted (SMART v2 or v1, OpenID Connect). */
  scopes: string[];
  launch_kinds: LaunchKind[];
  /** Where an EHR launch opens the app (with `iss` and `launch`), if it has one. */
  launch_url: string | null;
  enabled: WithDefault<boolean>;
  created_at: Date;
  updated_at: Date;
}

/** One record of the authorization server (oidc-provider's models: Session, AccessToken, Grant, ...). */
export interface OAuthRecordsTable {
  tenant_id: string;
  instance_id: string;
  model: string;
  id: string;
  payload: Json<unknown>;
  grant_id: string | null;
  client_id: string | null;
  uid: string | null;
  expires_at: Date | null;
}

/** The private keys the authorization server signs ID tokens with, sealed. */
export interface OAuthKeysTable {
  tenant_id: string;
  kid: string;
  sealed: string;
  created_at: Date;
}

/** How a person at an identity provider is found among the users: by verified email, or by subject once linked. */
export type MatchClaim = 'email' | 'sub';

/** An OpenID Connect identity provider the tenant's people may sign in with (single sign-on). */
export interface IdentityProvidersTable {
  tenant_id: string;
  id: string;
  /** Shown on the sign-in page's button: "Sign in with {name}". */
  name: string;
  issuer: string;
  client_id: string;
  /** Sealed, since Cairn presents it to the provider; null for a public client (PKCE alone). */
  client_secret_sealed: string | null;
  match_claim: MatchClaim;
  create_users: WithDefault<boolean>;
  enabled: WithDefault<boolean>;
  created_at: Date;
  updated_at: Date;
}

/** Which person at a provider (its `sub`) is which user, remembered at their first sign-in. */
export interface UserIdentitiesTable {
  tenant_id: string;
  provider_id: string;
  subject: string;
  user_id: string;
  created_at: Date;
}

declare module '../../db/schema.ts' {
  interface DB {
    smart_apps: SmartAppsTable;
    oauth_records: OAuthRecordsTable;
    oauth_keys: OAuthKeysTable;
    identity_providers: IdentityProvidersTable;
    user_identities: UserIdentitiesTable;
  }
}
