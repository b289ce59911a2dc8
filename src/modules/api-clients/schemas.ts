import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, Nullable, TenantParams, Uuid } from '../../wire/schemas.ts';

/** The API clients area's wire contract: the operator's console manages a tenant's callers here. */

/** As `cairn client create --name` takes it (tenancy/store.ts#createApiClient). */
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' });

/** A role in an instance, named as a user's roles are (`permissionName`, the name of 000). */
export const RoleInput = Type.Object({
  permissionName: Type.String({ minLength: 1, maxLength: 100, description: "A role of that instance's current formation" }),
  instanceName: Type.String({ minLength: 1, maxLength: 100 }),
});
export type RoleInputBody = Static<typeof RoleInput>;

/** Far above real use, low enough to keep a write small (as for users). */
const MAX_ROLES = 1000;
const Roles = Type.Array(RoleInput, {
  maxItems: MAX_ROLES,
  description: 'The roles the client holds, per instance: the whole list, replacing the one it had',
});

/**
 * A public key for SMART Backend Services (RFC 7517): RSA or EC P-384, signing RS384 or ES384, named
 * by its `kid` as the assertions' header names it. Its other members (n and e, or crv, x and y) are
 * the key's own; a private part (d) is refused.
 */
const Jwk = Type.Object(
  {
    kty: Type.Union([Type.Literal('RSA'), Type.Literal('EC')]),
    kid: Type.String({ minLength: 1, maxLength: 200 }),
    alg: Type.Optional(Type.Union([Type.Literal('RS384'), Type.Literal('ES384')])),
    use: Type.Optional(Type.Literal('sig')),
  },
  { additionalProperties: true },
);

/** A client's key set: at most a few keys, so a new one can be added before the old one is dropped. */
export const MAX_KEYS = 10;
export const Jwks = Type.Object(
  { keys: Type.Array(Jwk, { minItems: 1, maxItems: MAX_KEYS }) },
  {
    description:
      'Public keys (a JWK Set) the client signs SMART Backend Services assertions with, to get a FHIR token at `POST /auth/smart/token` (docs/fhir.md)',
  },
);
export type JwksBody = Static<typeof Jwks>;

export const ApiClientInput = Type.Object({ name: Name, roles: Roles, jwks: Type.Optional(Jwks) });
export const ApiClientPatch = Type.Object({
  name: Type.Optional(Name),
  jwks: Type.Optional(Nullable(Jwks)),
  enabled: Type.Optional(
    Type.Boolean({ description: 'false: the client gets no new tokens and its tokens stop working at once' }),
  ),
  roles: Type.Optional(Roles),
});
export type ApiClientInputBody = Static<typeof ApiClientInput>;
export type ApiClientPatchBody = Static<typeof ApiClientPatch>;

/** A role as a user's roles show it (users' `roles`), so one view fits both kinds of caller. */
const Role = Type.Object({
  permissionName: Type.String(),
  instanceName: Type.String(),
  type: Type.String({ description: 'SECURITY_ROLE' }),
  primaryRole: Type.Boolean(),
  effectiveDate: Nullable(DateTime),
  expirationDate: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const ApiClient = Type.Object({
  id: Uuid,
  name: Type.String({ description: 'Unique in the tenant; records it writes show `API_CLIENT:<name>` as their author' }),
  clientKey: Type.String({ description: 'What it signs in with (`apiClient` at /auth/token), with its secret' }),
  enabled: Type.Boolean(),
  roles: Type.Array(Role),
  jwks: Nullable(Jwks),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ApiClientView = Static<typeof ApiClient>;

export const ApiClientWithSecret = Type.Object({
  ...ApiClient.properties,
  secret: Type.String({
    description: 'The secret, shown this once: only its scrypt hash is kept, so a lost secret can only be replaced',
  }),
});

export const ApiClientParams = Type.Object({ ...TenantParams.properties, clientId: Uuid });

export const ApiClientListQuery = Type.Object({
  ...PagingQuery,
  name: Type.Optional(Type.String({ maxLength: 200, description: "Substring of the client's name, any case" })),
  enabled: Type.Optional(Type.Boolean()),
  roleName: Type.Optional(Type.String({ maxLength: 100, description: 'Clients holding this role in some instance' })),
});
export type ApiClientFilter = Static<typeof ApiClientListQuery>;
