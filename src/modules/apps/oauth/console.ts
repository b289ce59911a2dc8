import type { AdapterPayload } from 'oidc-provider';

/**
 * The operator console (console/) signs people in as any app does: a public client with PKCE of
 * every instance's authorization server, known without registration. Its redirect is the console's
 * own address on the issuer's origin, so no other origin can receive its codes. Unlike an app's,
 * its tokens act as the user's own (tokens.ts): not narrowed by scopes, on the tenant's every route,
 * as a token from `/auth/token` would; consent is not asked (consent.ts), the user signing in
 * to Cairn's own console.
 */
export const CONSOLE_CLIENT_ID = 'cairn-console';

/** The console's address on the issuer's origin: its redirect after sign-in and sign-out. */
export const consoleUrl = (issuer: string) => new URL('/console/', issuer).href;

export function consoleClient(issuer: string): AdapterPayload {
  return {
    client_id: CONSOLE_CLIENT_ID,
    client_name: 'Cairn console',
    redirect_uris: [consoleUrl(issuer)],
    post_logout_redirect_uris: [consoleUrl(issuer)],
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
    scope: 'openid profile online_access',
  };
}
