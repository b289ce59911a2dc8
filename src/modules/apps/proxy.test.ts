import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createTestTenant, startApp } from '../../test/harness.ts';

/**
 * The authorization server sees the scheme and host Fastify concluded (oauth/routes.ts): forwarded
 * headers from a sender that is not a trusted proxy change nothing, not the issuer and not the
 * cookies' Secure flag (which a browser on plain HTTP would drop, breaking the sign-in).
 */

const app = await startApp({ trustProxy: ['10.9.9.9'] });
const origin = await app.server.listen({ port: 0, host: '127.0.0.1' });
after(() => app.server.close());

describe('forwarded headers from an untrusted sender', () => {
  test('do not make the authorization server think it is reached over HTTPS, or by another host', async () => {
    const t = await createTestTenant(app);
    const base = `${origin}${t.base}/fhir/R4`;
    const forged = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
    const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`, { headers: forged })).json()) as {
      issuer: string;
      authorization_endpoint: string;
    };
    assert.equal(discovery.issuer, base);
    assert.equal(discovery.authorization_endpoint, `${base}/oauth/authorize`);

    const registered = await t.api.post(`${t.admin}/apps`, {
      name: 'proxy-check',
      clientType: 'PUBLIC',
      redirectUris: ['http://localhost:5173/callback'],
      scopes: ['openid'],
    });
    assert.equal(registered.status, 201, registered.text);
    const url = new URL(`${base}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: registered.body.clientId,
      response_type: 'code',
      redirect_uri: 'http://localhost:5173/callback',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'a-state-of-some-length',
    }).toString();
    const started = await fetch(url, { headers: forged, redirect: 'manual' });
    assert.equal(started.status, 303);
    assert.ok(
      started.headers.get('location')?.startsWith(`${t.base}/fhir/R4/oauth/interaction/`),
      started.headers.get('location') ?? '',
    );
    const cookies = started.headers.getSetCookie();
    assert.ok(cookies.length > 0);
    for (const cookie of cookies) assert.doesNotMatch(cookie, /;\s*secure/i, cookie);
  });
});
