/**
 * The identity bench's bare baseline (bench/identity.ts): the same authorization server library
 * (oidc-provider, the version Cairn runs) with nothing of Cairn's around it. Its records in memory,
 * one app and one user held in constants, sign-in and consent pages of the same forms, the password
 * checked against a hash made as Cairn makes them (scrypt, tenancy/secrets.ts), since that is work
 * any real sign-in does. What Cairn adds beyond it is the cost measured: records in PostgreSQL,
 * the app and the user looked up, the token limits, the access hook, the launch context.
 *
 * Started by the bench with PORT, CLIENT_ID, USERNAME, PASSWORD and REDIRECT; prints nothing, answers until killed.
 */
import http from 'node:http';
import Provider, { type Configuration } from 'oidc-provider';
import { hashSecret, verifySecret } from '../src/tenancy/secrets.ts';

const port = Number(process.env.PORT);
const BASELINE_CLIENT = process.env.CLIENT_ID ?? 'bench-app';
const BASELINE_USER = process.env.USERNAME ?? 'bench-user';
const redirect = process.env.REDIRECT ?? 'http://localhost:5173/callback';
const password = process.env.PASSWORD ?? '';
const issuer = `http://127.0.0.1:${port}`;
const passwordHash = await hashSecret(password);

const configuration: Configuration = {
  clients: [
    {
      client_id: BASELINE_CLIENT,
      token_endpoint_auth_method: 'none',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid fhirUser offline_access',
    },
  ],
  pkce: { required: () => true },
  scopes: ['openid', 'offline_access'],
  claims: { openid: ['sub'], fhirUser: ['fhirUser'] },
  conformIdTokenClaims: false,
  extraParams: ['aud'],
  cookies: { keys: ['bench-baseline-cookie-key'] },
  findAccount: (_ctx, sub) => ({
    accountId: sub,
    claims: () => ({ sub, fhirUser: `${issuer}/Practitioner/${sub}` }),
  }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => issuer,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'user/Patient.rs', accessTokenFormat: 'opaque', accessTokenTTL: 3600 }),
    },
  },
  ttl: {
    AccessToken: 3600,
    AuthorizationCode: 60,
    IdToken: 3600,
    Interaction: 3600,
    Session: 43200,
    Grant: 7776000,
    RefreshToken: 7776000,
  },
  rotateRefreshToken: true,
  issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
};

const provider = new Provider(issuer, configuration);
const handle = provider.callback();

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench</title></head><body><main>${body}</main></body></html>`;

async function form(request: http.IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return new URLSearchParams(text);
}

function send(response: http.ServerResponse, status: number, html: string) {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(html);
}

async function interaction(request: http.IncomingMessage, response: http.ServerResponse, uid: string, step?: string) {
  const details = await provider.interactionDetails(request, response);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (!step) {
    const action = `/interaction/${uid}/${details.prompt.name === 'login' ? 'login' : 'consent'}`;
    const fields =
      details.prompt.name === 'login'
        ? '<input name="username"><input name="password" type="password">'
        : '<input type="checkbox" name="scope" value="user/Patient.rs" checked>';
    return send(response, 200, page(`<form method="post" action="${action}">${fields}<button>Go</button></form>`));
  }
  const body = await form(request);
  if (step === 'login') {
    const ok = body.get('username') === BASELINE_USER && (await verifySecret(body.get('password') ?? '', passwordHash));
    if (!ok) return send(response, 401, page('<p>Not right</p>'));
    return provider.interactionFinished(
      request,
      response,
      { login: { accountId: BASELINE_USER } },
      { mergeWithLastSubmission: true },
    );
  }
  const grant = new provider.Grant({ accountId: BASELINE_USER, clientId: String(details.params.client_id) });
  grant.addOIDCScope('openid fhirUser offline_access');
  grant.addOIDCClaims(['fhirUser']);
  grant.addResourceScope(issuer, body.getAll('scope').join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

http
  .createServer((request, response) => {
    const match = /^\/interaction\/([^/?]+)(?:\/(login|consent))?/.exec(request.url ?? '');
    if (!match) return handle(request, response);
    interaction(request, response, match[1] ?? '', match[2]).catch((error: unknown) => {
      send(response, 400, page(`<p>${error instanceof Error ? error.message : 'error'}</p>`));
    });
  })
  .listen(port, '127.0.0.1');
