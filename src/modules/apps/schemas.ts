import { type Static, Type } from 'typebox';
import { DateTime, Nullable, TenantParams, Uuid } from '../../wire/schemas.ts';

/** The apps area's wire contract: an administrator registers the SMART apps people may let act for them. */

const Name = Type.String({ minLength: 1, maxLength: 100 });

const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: 2000, format: 'uri' }), {
  minItems: 1,
  maxItems: 20,
  description:
    "Exact redirect URIs (https, or http on localhost for development); a request naming another is refused on Cairn's own page",
});

const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: '^[!#-\\[\\]-~]+$' }), {
  minItems: 1,
  maxItems: 200,
  description:
    "What the app may ask for: `openid`, `fhirUser`, `profile`, `offline_access`, `online_access`, `launch`, `launch/patient`, and resource scopes such as `user/*.rs` or `user/Patient.rs` (SMART v2; v1's `user/*.read` too). A user may allow less",
});

const LaunchKinds = Type.Array(Type.Union([Type.Literal('STANDALONE'), Type.Literal('EHR')]), {
  minItems: 1,
  maxItems: 2,
  uniqueItems: true,
});

const Jwk = Type.Object(
  { kty: Type.Union([Type.Literal('RSA'), Type.Literal('EC')]), kid: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: true },
);
const Jwks = Type.Object({ keys: Type.Array(Jwk, { minItems: 1, maxItems: 10 }) });

const ClientType = Type.Union(
  [Type.Literal('PUBLIC'), Type.Literal('CONFIDENTIAL_SYMMETRIC'), Type.Literal('CONFIDENTIAL_ASYMMETRIC')],
  {
    description:
      'PUBLIC: a browser or native app, no secret (PKCE alone); CONFIDENTIAL_SYMMETRIC: a server-side app with a secret Cairn makes (HTTP Basic at the token endpoint); CONFIDENTIAL_ASYMMETRIC: signs a JWT with a key of its `jwks` or `jwksUri` (private_key_jwt)',
  },
);

const LaunchUrl = Type.String({
  minLength: 1,
  maxLength: 2000,
  format: 'uri',
  description:
    "Where an EHR launch opens the app (SMART's launch URL: https, or http on localhost): the console opens it with `iss` and `launch`",
});

export const AppInput = Type.Object({
  name: Name,
  clientType: ClientType,
  redirectUris: RedirectUris,
  scopes: Scopes,
  launchKinds: Type.Optional(LaunchKinds),
  launchUrl: Type.Optional(LaunchUrl),
  jwks: Type.Optional(Jwks),
  jwksUri: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, format: 'uri' })),
});
export type AppInputBody = Static<typeof AppInput>;

export const AppPatch = Type.Object({
  name: Type.Optional(Name),
  redirectUris: Type.Optional(RedirectUris),
  scopes: Type.Optional(Scopes),
  launchKinds: Type.Optional(LaunchKinds),
  launchUrl: Type.Optional(Nullable(LaunchUrl)),
  jwks: Type.Optional(Nullable(Jwks)),
  jwksUri: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000, format: 'uri' }))),
  enabled: Type.Optional(Type.Boolean({ description: 'false: no new sign-in, and its tokens stop working at once' })),
});
export type AppPatchBody = Static<typeof AppPatch>;

export const App = Type.Object({
  id: Uuid,
  name: Type.String(),
  clientId: Type.String({ description: 'The OAuth client_id the app sends' }),
  clientType: ClientType,
  redirectUris: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  launchKinds: Type.Array(Type.String()),
  launchUrl: Nullable(Type.String()),
  jwks: Nullable(Jwks),
  jwksUri: Nullable(Type.String()),
  enabled: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type AppView = Static<typeof App>;

export const AppWithSecret = Type.Intersect([
  App,
  Type.Object({ clientSecret: Nullable(Type.String({ description: "A confidential-symmetric app's secret, shown this once" })) }),
]);

export const AppParams = Type.Object({ ...TenantParams.properties, appId: Uuid });
export const AppList = Type.Object({ data: Type.Array(App) });

export const LaunchParams = Type.Object({ tenantName: Type.String(), instanceName: Type.String(), appId: Uuid });
export const LaunchInput = Type.Object({ patientId: Uuid });
export const LaunchAnswer = Type.Object({
  launch: Type.String({ description: 'The value the app sends back as `launch` in its authorization request' }),
  iss: Type.String({ description: "The FHIR base the app is opened for (SMART's `iss`)" }),
  url: Nullable(
    Type.String({ description: "The app's launch URL with `iss` and `launch`, to open; null when the app registered none" }),
  ),
  expiresAt: DateTime,
});

export const LaunchableList = Type.Object({
  data: Type.Array(Type.Object({ id: Uuid, name: Type.String(), launchUrl: Type.String() })),
});
