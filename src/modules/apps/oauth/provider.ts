import Provider, { type Configuration, errors, type KoaContextWithOIDC, type SigningAlgorithm } from 'oidc-provider';
import type { Services } from '../../../http/services.ts';
import { TOKEN_LIFETIME_SECONDS } from '../../../http/tokens.ts';
import type { Instance, Tenant } from '../../../tenancy/tenancy.ts';
import { ASSERTION_ALGORITHMS } from '../../auth/index.ts';
import { findAccount } from './accounts.ts';
import { OAuthRecords } from './adapter.ts';
import { AppClients } from './clients.ts';
import { interactionPath, OAUTH_ROUTES, REFRESH_TOKEN_SECONDS } from './endpoints.ts';
import { signingKeys } from './keys.ts';
import { contextOf } from './launch.ts';
import { errorPage, PAGE_CSP, signedOutPage, signOutPage } from './pages.ts';
import { LAUNCH_SCOPES, RESOURCE_SCOPES, resourceScopesOf } from './scopes.ts';

/**
 * The authorization server of one instance (SMART App Launch 2.0, OpenID Connect; docs/identity.md),
 * oidc-provider configured: its issuer is the instance's FHIR base, its endpoints under
 * `<FHIR base>/oauth/`, its records in Cairn's database (adapter.ts), its clients the apps the
 * tenant registered (clients.ts), its accounts the tenant's users (accounts.ts). The sign-in and
 * consent pages are Cairn's own routes (sign-in.ts, consent.ts).
 */
export async function buildProvider(services: Services, tenant: Tenant, instance: Instance, issuer: string): Promise<Provider> {
  const { db } = services;
  const scope = { tenantId: tenant.id, instanceId: instance.id };
  const now = () => services.clock.now();
  const keys = await signingKeys(db, services.sealer, tenant.id, now());
  const mount = new URL(issuer).pathname;
  const configuration: Configuration = {
    adapter: (model: string) =>
      model === 'Client' ? new AppClients(db, services.sealer, tenant.id, issuer) : new OAuthRecords(db, scope, model, now),
    clients: [],
    extraClientMetadata: { properties: [RESOURCE_SCOPES] },
    jwks: { keys: keys as never },
    // Signed with a key every node derives alike, so any node reads a cookie another set.
    cookies: { keys: [services.derivedKey(`oauth cookies ${issuer}`).toString('base64url')] },
    routes: OAUTH_ROUTES,
    scopes: ['openid', 'offline_access', ...LAUNCH_SCOPES],
    claims: { openid: ['sub'], fhirUser: ['fhirUser'], profile: ['name'] },
    // SMART's `fhirUser` and `profile` in the ID token itself, not only at userinfo.
    conformIdTokenClaims: false,
    extraParams: ['launch', 'aud'],
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    // SMART's asymmetric client authentication: RS384 and ES384, as for backend services.
    enabledJWA: { clientAuthSigningAlgValues: [...ASSERTION_ALGORITHMS] as SigningAlgorithm[] },
    pkce: { required: () => true },
    findAccount: (_ctx, sub) => findAccount(db, tenant.id, issuer, sub),
    interactions: { url: (_ctx, interaction) => `${mount}${interactionPath(interaction.uid)}` },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: true },
      userinfo: { enabled: true },
      // Sign-out (the console's, an app's): Cairn's pages ask and confirm; the session and its cookies end.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.set('content-security-policy', PAGE_CSP);
          ctx.body = signOutPage(form);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.set('content-security-policy', PAGE_CSP);
          ctx.body = signedOutPage();
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => issuer,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx: KoaContextWithOIDC, resource: string) => {
          if (resource !== issuer) throw new errors.InvalidTarget('the only resource is this FHIR base');
          return {
            scope: resourceScopesOf(ctx).join(' '),
            accessTokenFormat: 'opaque',
            accessTokenTTL: TOKEN_LIFETIME_SECONDS,
          };
        },
      },
    },
    ttl: {
      AccessToken: TOKEN_LIFETIME_SECONDS,
      AuthorizationCode: 60,
      IdToken: TOKEN_LIFETIME_SECONDS,
      Interaction: 60 * 60,
      Session: 12 * 60 * 60,
      Grant: REFRESH_TOKEN_SECONDS,
      RefreshToken: REFRESH_TOKEN_SECONDS,
    },
    // Every refresh rotates (a reused refresh token revokes its family: oidc-provider does).
    rotateRefreshToken: true,
    // SMART: offline_access, and online_access (a refresh token that lives with the session).
    issueRefreshToken: (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && (code.scopes.has('offline_access') || code.scopes.has('online_access')),
    // A browser app (a public client) calls the token endpoint from its redirect URI's origin.
    clientBasedCORS: (_ctx, origin, client) =>
      (client.redirectUris ?? []).some((uri) => {
        try {
          return new URL(uri).origin === origin;
        } catch {
          return false;
        }
      }),
    renderError: (ctx, out) => {
      ctx.type = 'html';
      // Cairn's pages' CSP, which allows their stylesheet: this answer is oidc-provider's, not sendPage's.
      ctx.set('content-security-policy', PAGE_CSP);
      ctx.body = errorPage(out.error, out.error_description);
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.use(tokenAnswer((grantId) => contextOf(db, scope, now, grantId)));
  // The forwarded headers it reads are the ones Fastify concluded (routes.ts asFastifySees): trusted.
  provider.proxy = true;
  return provider;
}

/**
 * The token endpoint's answer as SMART apps read it: `scope` names every scope granted (oidc-provider
 * names the access token's resource scopes only; SMART apps look for `openid`, `fhirUser` and
 * `offline_access` there too), it names an EHR launch's patient (`patient`), and caches are told
 * not to keep it (Pragma for old ones).
 */
const tokenAnswer =
  (launchContext: (grantId: string) => Promise<{ patient: string } | undefined>) =>
  async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const body = ctx.body as { access_token?: string; scope?: string; patient?: string } | undefined;
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200 || !body?.access_token) return;
    ctx.set('pragma', 'no-cache');
    const { AuthorizationCode: code, RefreshToken: refresh, Grant: grant } = ctx.oidc.entities;
    const asked = new Set((code?.scope ?? refresh?.scope ?? '').split(' '));
    const identity = (grant?.getOIDCScope() ?? '').split(' ').filter((scope) => scope && asked.has(scope));
    body.scope = [...new Set([...identity, ...(body.scope ?? '').split(' ').filter(Boolean)])].join(' ');
    // The patient of an EHR launch, on every token of its grant.
    const context = grant?.jti ? await launchContext(grant.jti) : undefined;
    if (context) body.patient = context.patient;
  };
