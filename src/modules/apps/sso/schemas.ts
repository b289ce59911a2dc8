import { type Static, Type } from 'typebox';
import { DateTime, Nullable, TenantParams, Uuid } from '../../../wire/schemas.ts';

/** Single sign-on's wire contract: the OpenID Connect identity providers a tenant's people may sign in with. */

const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Shown on the sign-in page: "Sign in with {name}"' });
const Issuer = Type.String({
  minLength: 1,
  maxLength: 2000,
  format: 'uri',
  description:
    "The provider's issuer, exactly as its discovery document (`<issuer>/.well-known/openid-configuration`) names it: https, or http on localhost for development",
});
const ClientId = Type.String({ minLength: 1, maxLength: 500, description: 'The client id the provider gave Cairn' });
const ClientSecret = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'The client secret the provider gave Cairn: kept sealed, never answered back',
});
const MatchClaim = Type.Union([Type.Literal('email'), Type.Literal('sub')], {
  description:
    "How a person is found among the users. `email`: the user whose email is the person's verified email, at every sign-in. `sub`: the first sign-in finds the user by verified email and remembers the person's subject; later ones go by the subject alone (an email changed or reused at the provider changes nothing). A new provider matches by `email` unless told",
});
const CreateUsers = Type.Boolean({
  description:
    'Whether a person no user matches becomes a new user at their first sign-in (no password, no roles: an administrator gives them roles); false unless told',
});

export const IdentityProviderInput = Type.Object({
  name: Name,
  issuer: Issuer,
  clientId: ClientId,
  clientSecret: Type.Optional(ClientSecret),
  matchClaim: Type.Optional(MatchClaim),
  createUsers: Type.Optional(CreateUsers),
  enabled: Type.Optional(Type.Boolean({ description: 'false: not offered on the sign-in page' })),
});
export type IdentityProviderInputBody = Static<typeof IdentityProviderInput>;

export const IdentityProviderPatch = Type.Object({
  name: Type.Optional(Name),
  issuer: Type.Optional(Issuer),
  clientId: Type.Optional(ClientId),
  clientSecret: Type.Optional(Nullable(ClientSecret)),
  matchClaim: Type.Optional(MatchClaim),
  createUsers: Type.Optional(CreateUsers),
  enabled: Type.Optional(Type.Boolean({ description: 'false: not offered on the sign-in page, and a sign-in under way stops' })),
});
export type IdentityProviderPatchBody = Static<typeof IdentityProviderPatch>;

export const IdentityProvider = Type.Object({
  id: Uuid,
  name: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretSet: Type.Boolean({
    description: 'Whether a client secret is kept (without one Cairn is a public client, PKCE alone)',
  }),
  matchClaim: MatchClaim,
  createUsers: Type.Boolean(),
  enabled: Type.Boolean(),
  redirectUris: Type.Array(Type.String(), {
    description:
      'Where the provider sends people back: one per instance of the tenant (`<FHIR base>/oauth/sso/callback`). Register at the provider those of the instances whose people sign in with it',
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type IdentityProviderView = Static<typeof IdentityProvider>;

export const IdentityProviderList = Type.Object({ data: Type.Array(IdentityProvider) });
export const IdentityProviderParams = Type.Object({ ...TenantParams.properties, providerId: Uuid });
