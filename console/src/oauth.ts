import type { IssuedToken } from '@cairn/client';
import * as oauth from 'oauth4webapi';

/**
 * A person signs in to the console as any app does (docs/identity.md "The console"): the console is
 * a public client of the instance's authorization server (`cairn-console`, which every instance
 * knows), sends the browser to Cairn's sign-in page with PKCE (S256), `state` and `nonce`, and
 * trades the code for tokens, so the second factor and single sign-on apply here as to every app.
 * oauth4webapi (the OpenID Certified library under openid-client) does the protocol. The tokens
 * live in memory only; what must survive the redirect (the verifier, state and nonce) waits in
 * sessionStorage, for this tab, and is removed at once. PKCE needs Web Crypto: a secure context
 * (HTTPS, or localhost).
 */

export const CONSOLE_CLIENT_ID = 'cairn-console';
const PENDING = 'cairn-console-sign-in';
const client: oauth.Client = { client_id: CONSOLE_CLIENT_ID };
const clientAuth = oauth.None();

interface Pending {
  tenantName: string;
  instanceName: string;
  verifier: string;
  state: string;
  nonce: string;
  /** The console page asked for, returned to once signed in. */
  path: string;
}

export interface OAuthSignIn {
  tenantName: string;
  instanceName: string;
  /** The signed-in user's name, or their id. */
  who: string;
  /** The first token, and how to get the next (a rotating refresh token). */
  first: IssuedToken;
  renew: () => Promise<IssuedToken>;
  /** Revokes the refresh token and ends the session at the authorization server (a page load). */
  signOut: () => Promise<void>;
}

const redirectUri = () => new URL('/console/', window.location.origin).href;

/** The instance's authorization server: its FHIR base is the issuer. */
function issuerOf(baseUrl: string, tenantName: string, instanceName: string): URL {
  return new URL(`/${encodeURIComponent(tenantName)}/${encodeURIComponent(instanceName)}/fhir/R4`, baseUrl);
}

/** Plain HTTP only towards a local server (development); anywhere else the library refuses it. */
const insecureAllowed = (url: URL) => ({
  [oauth.allowInsecureRequests]: url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname),
});

async function discover(issuer: URL): Promise<oauth.AuthorizationServer> {
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecureAllowed(issuer) });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** Sends the browser to the instance's sign-in page. */
export async function beginSignIn(baseUrl: string, tenantName: string, instanceName: string): Promise<void> {
  if (!window.isSecureContext) throw new Error('Signing in needs HTTPS (or localhost): sign in as an API client instead');
  const as = await discover(issuerOf(baseUrl, tenantName, instanceName));
  const verifier = oauth.generateRandomCodeVerifier();
  const pending: Pending = {
    tenantName,
    instanceName,
    verifier,
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    path: window.location.pathname,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint ?? '');
  url.search = new URLSearchParams({
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: 'openid profile online_access',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  }).toString();
  window.location.assign(url.href);
}

/** Back from the sign-in page: the code traded for tokens; undefined when this load is no such return. */
export async function finishSignIn(baseUrl: string): Promise<OAuthSignIn | undefined> {
  const here = new URL(window.location.href);
  const stored = sessionStorage.getItem(PENDING);
  if (!stored || !(here.searchParams.has('code') || here.searchParams.has('error'))) return undefined;
  sessionStorage.removeItem(PENDING);
  const pending = JSON.parse(stored) as Pending;
  // The code leaves the address bar and the history at once.
  window.history.replaceState(null, '', pending.path);
  const issuer = issuerOf(baseUrl, pending.tenantName, pending.instanceName);
  const as = await discover(issuer);
  const options = insecureAllowed(issuer);
  const callback = oauth.validateAuthResponse(as, client, here, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    callback,
    redirectUri(),
    pending.verifier,
    options,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce });
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  let refreshToken = tokens.refresh_token;
  const issued = (answer: oauth.TokenEndpointResponse): IssuedToken => ({
    token: answer.access_token,
    expiresAt: new Date(Date.now() + (answer.expires_in ?? 3600) * 1000).toISOString(),
  });
  return {
    tenantName: pending.tenantName,
    instanceName: pending.instanceName,
    who: typeof claims?.name === 'string' ? claims.name : String(claims?.sub ?? 'signed in'),
    first: issued(tokens),
    async renew() {
      if (!refreshToken) throw new Error('Signed out: sign in again');
      const answer = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, options),
      );
      refreshToken = answer.refresh_token ?? refreshToken;
      return issued(answer);
    },
    async signOut() {
      const token = refreshToken;
      refreshToken = undefined;
      if (token) await oauth.revocationRequest(as, client, clientAuth, token, options).catch(() => undefined);
      if (!as.end_session_endpoint) return;
      const end = new URL(as.end_session_endpoint);
      end.search = new URLSearchParams({
        client_id: CONSOLE_CLIENT_ID,
        ...(tokens.id_token ? { id_token_hint: tokens.id_token } : {}),
        post_logout_redirect_uri: redirectUri(),
      }).toString();
      window.location.assign(end.href);
    },
  };
}
