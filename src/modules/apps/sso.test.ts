import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import Provider, { type Configuration } from 'oidc-provider';
import * as oidc from 'openid-client';
import { auditOf, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';
import { routerPlanProblems } from '../../test/router-plans.ts';
import { captureStatements, stopCapture } from '../../test/statements.ts';

/**
 * Single sign-on (docs/identity.md): a tenant registers its own OpenID Connect identity provider;
 * Cairn's sign-in page offers it; the person signs in there and comes back as the user they are
 * here, then allows the app as after a password. The provider is a real oidc-provider on a port of
 * its own (its development login form: any password), the app a relying party (openid-client), the
 * browser a cookie jar that keeps each cookie to its host and path, as browsers do.
 */

const app = await startApp();
/** Every statement the flows send, for the router-plan check on Citus (end of file). */
const sent = captureStatements();
const origin = await app.server.listen({ port: 0, host: '127.0.0.1' });
after(() => app.server.close());

const REDIRECT = 'http://localhost:5173/callback';
const IDP_SECRET = 'idp-client-secret';

// ---------------------------------------------------------------------------------------------
// The organization's identity provider.

interface Person {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

interface Idp {
  issuer: string;
  /** The people it knows, by subject: change one and its next sign-in says so. */
  people: Map<string, Person>;
}

const idps: http.Server[] = [];
after(() => {
  for (const server of idps) {
    server.closeAllConnections();
    server.close();
  }
});

/** An identity provider knowing Cairn (client `cairn`) at the test tenant's callback. */
async function startIdp(t: TestTenant, { claimsInIdToken = true } = {}): Promise<Idp> {
  const server = http.createServer();
  idps.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, Person>();
  const configuration: Configuration = {
    clients: [{ client_id: 'cairn', client_secret: IDP_SECRET, redirect_uris: [`${fhirBase(t)}/oauth/sso/callback`] }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    // false: the claims in the ID token (as most providers do); true: at userinfo only (OpenID Connect to the letter).
    conformIdTokenClaims: !claimsInIdToken,
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      return person && { accountId: sub, claims: () => ({ sub, ...person }) };
    },
    features: { devInteractions: { enabled: true } },
    // Its own cookie names: a browser shares cookies between ports of one host.
    cookies: { keys: ['idp-cookie-key'], names: { session: 'idp', interaction: 'idp_i', resume: 'idp_r' } },
  };
  const provider = new Provider(issuer, configuration);
  server.on('request', provider.callback());
  return { issuer, people };
}

// ---------------------------------------------------------------------------------------------
// A browser, and its way through the pages.

interface Cookie {
  host: string;
  path: string;
  name: string;
  value: string;
}

const onPath = (path: string, cookiePath: string) =>
  path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/'));

/** Follows nothing by itself; keeps each cookie to its host (any port) and path (RFC 6265). */
class Browser {
  private cookies: Cookie[] = [];

  async request(url: string, form?: Record<string, string | string[]>) {
    const target = new URL(url, origin);
    const sent = this.cookies.filter((cookie) => cookie.host === target.hostname && onPath(target.pathname, cookie.path));
    const headers: Record<string, string> = { cookie: sent.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') };
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) params.append(name, one);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(target, { method: form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.keep(target, line);
    const location = response.headers.get('location');
    return {
      url: target.href,
      status: response.status,
      location: location ? new URL(location, target).href : undefined,
      text: await response.text(),
    };
  }

  private keep(target: URL, line: string) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const [name = '', value = ''] = pair.split('=');
    const pathAttribute = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='));
    const path = pathAttribute?.slice(5) || target.pathname.replace(/\/[^/]*$/, '') || '/';
    const expired = attributes.some((attribute) => /^expires=.*1970/i.test(attribute) || /^max-age=0$/i.test(attribute));
    this.cookies = this.cookies.filter((c) => !(c.host === target.hostname && c.path === path && c.name === name));
    if (value && !expired) this.cookies.push({ host: target.hostname, path, name, value });
  }

  /** Redirects followed until a page (or until `stop` says an address is where to stop). */
  async follow(url: string, stop: (url: string) => boolean = () => false) {
    let answer = await this.request(url);
    for (let hops = 0; answer.location && !stop(answer.location); hops += 1) {
      assert.ok(hops < 12, `too many redirects at ${answer.url}`);
      answer = await this.request(answer.location);
    }
    return answer;
  }

  /** The page's first POST form sent, with its hidden fields and `fields`. */
  async submit(page: { url: string; text: string }, fields: Record<string, string | string[]> = {}) {
    const form = /<form[^>]*>[\s\S]*?<\/form>/.exec(page.text)?.[0] ?? '';
    const action = unescaped(/action="([^"]+)"/.exec(form)?.[1] ?? '');
    const hidden = [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)];
    const values = Object.fromEntries(hidden.map(([, name = '', value = '']) => [name, unescaped(value)]));
    return this.request(new URL(action, page.url).href, { ...values, ...fields });
  }
}

const unescaped = (text: string) =>
  text.replace(
    /&(amp|quot|#39|#x2F|lt|gt);/g,
    (_, code: string) => ({ amp: '&', quot: '"', '#39': "'", '#x2F': '/', lt: '<', gt: '>' })[code] ?? '',
  );

// ---------------------------------------------------------------------------------------------
// Cairn's side: the tenant, its app, its users, its providers.

const fhirBase = (t: TestTenant) => `${origin}${t.base}/fhir/R4`;

async function registerApp(t: TestTenant) {
  const response = await t.api.post(`${t.admin}/apps`, {
    name: 'Vitals viewer',
    clientType: 'PUBLIC',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'fhirUser', 'user/*.rs'],
  });
  assert.equal(response.status, 201, response.text);
  const { clientId } = response.body as { clientId: string };
  return oidc.discovery(new URL(fhirBase(t)), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

async function addUser(t: TestTenant, body: Record<string, unknown> = {}) {
  const username = `nurse-${Math.random().toString(36).slice(2, 8)}`;
  const response = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Joy',
    lastName: 'Nurse',
    passwordAccess: false,
    ssoAccess: true,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; username: string; email: string };
}

async function addProvider(t: TestTenant, idp: Idp, body: Record<string, unknown> = {}) {
  const response = await t.api.post(`${t.admin}/identity-providers`, {
    name: 'Okta',
    issuer: idp.issuer,
    clientId: 'cairn',
    clientSecret: IDP_SECRET,
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; name: string };
}

/** An app's authorization up to Cairn's sign-in page, in a new browser. */
async function toSignInPage(t: TestTenant, config: oidc.Configuration) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid fhirUser user/Patient.rs',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    aud: fhirBase(t),
  });
  const browser = new Browser();
  const page = await browser.follow(url.href);
  assert.equal(page.status, 200, page.text);
  assert.match(page.text, /<h1>Sign in<\/h1>/);
  return { browser, page, verifier, state };
}

/**
 * From Cairn's sign-in page through the provider's (login as `sub`, then its consent) back to
 * Cairn's callback: the callback's address, not yet followed.
 */
async function atProvider(browser: Browser, page: { text: string }, providerName: string, sub: string) {
  const href = new RegExp(`<a class="sso" href="([^"]+)">Sign in with ${providerName}</a>`).exec(page.text)?.[1];
  assert.ok(href, `no "Sign in with ${providerName}" on the page`);
  const isCallback = (url: string) => url.includes('/oauth/sso/callback');
  const login = await browser.follow(unescaped(href), isCallback);
  assert.equal(login.status, 200, login.text);
  const loggedIn = await browser.submit(login, { login: sub, password: 'anything' });
  const consent = await browser.follow(loggedIn.location ?? '', isCallback);
  const consented = consent.status === 200 ? await browser.submit(consent) : consent;
  const back = isCallback(consented.location ?? '') ? consented : await browser.follow(consented.location ?? '', isCallback);
  assert.ok(back.location && isCallback(back.location), `not sent back to Cairn: ${back.status} ${back.text}`);
  return back.location;
}

/** The whole way: sign in at the provider as `sub`, allow the app, trade the code. The tokens, or the page Cairn refused on. */
async function signIn(t: TestTenant, config: oidc.Configuration, providerName: string, sub: string) {
  const { browser, page, verifier, state } = await toSignInPage(t, config);
  const callback = await atProvider(browser, page, providerName, sub);
  const consentPage = await browser.follow(callback);
  if (consentPage.status !== 200 || !/Allow /.test(consentPage.text)) return { refused: consentPage };
  const offered = [...consentPage.text.matchAll(/name="scope" value="([^"]+)"/g)].map((match) => match[1] ?? '');
  const allowed = await browser.submit(consentPage, { decision: 'allow', scope: offered });
  const back = await browser.follow(allowed.location ?? '', (url) => url.startsWith(REDIRECT));
  assert.ok(back.location?.startsWith(REDIRECT), back.text);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(back.location ?? ''), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  return { tokens };
}

async function tokensOf(t: TestTenant, config: oidc.Configuration, providerName: string, sub: string) {
  const result = await signIn(t, config, providerName, sub);
  assert.ok(result.tokens, `refused: ${result.refused?.status} ${result.refused?.text}`);
  return result.tokens;
}

async function refusalOf(t: TestTenant, config: oidc.Configuration, providerName: string, sub: string) {
  const result = await signIn(t, config, providerName, sub);
  assert.ok(result.refused, 'the sign-in went through');
  return result.refused;
}

// ---------------------------------------------------------------------------------------------

describe('single sign-on: a person signs in at the tenant’s identity provider and acts as their user', () => {
  test('matched by verified email (any case): the app’s tokens name the Cairn user, who reads as their role allows', async () => {
    const t = await createTestTenant(app);
    const idp = await startIdp(t);
    await addProvider(t, idp);
    await addProvider(t, idp, { name: 'Disabled IdP', enabled: false });
    const config = await registerApp(t);
    const user = await addUser(t);
    idp.people.set('okta-1', { email: user.email.toUpperCase(), email_verified: true, given_name: 'Joy', family_name: 'Nurse' });

    const { page } = await toSignInPage(t, config);
    assert.match(page.text, /Sign in with Okta/);
    assert.doesNotMatch(page.text, /Disabled IdP/);
    // The password form stays for the users who have one.
    assert.match(page.text, /name="password"/);

    const tokens = await tokensOf(t, config, 'Okta', 'okta-1');
    assert.equal(tokens.claims()?.sub, user.id);
    assert.equal(tokens.claims()?.fhirUser, `${fhirBase(t)}/Practitioner/${user.id}`);
    const patient = await createPatient(t);
    const read = await fetch(`${fhirBase(t)}/Patient/${patient.id}`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(read.status, 200);
    // The subject is remembered, audited under the system as single sign-on.
    const linked = await auditOf(t, { action: 'USER_IDENTITY_LINKED' });
    assert.deepEqual(
      linked.map((entry) => entry.entityId),
      [user.id],
    );
    // Again: matched the same way, nothing more to remember.
    assert.equal((await tokensOf(t, config, 'Okta', 'okta-1')).claims()?.sub, user.id);
    assert.equal((await auditOf(t, { action: 'USER_IDENTITY_LINKED' })).length, 1);
  });

  test('matched by subject (claims at userinfo): the first sign-in links it; later ones go by it whatever the email says', async () => {
    const t = await createTestTenant(app);
    const idp = await startIdp(t, { claimsInIdToken: false });
    await addProvider(t, idp, { name: 'Entra', matchClaim: 'sub' });
    const config = await registerApp(t);
    const user = await addUser(t);
    idp.people.set('entra-1', { email: user.email, email_verified: true });

    assert.equal((await tokensOf(t, config, 'Entra', 'entra-1')).claims()?.sub, user.id);
    // Their email changes at the provider: still the same user, by subject.
    idp.people.set('entra-1', { email: 'someone.else@example.org', email_verified: true });
    assert.equal((await tokensOf(t, config, 'Entra', 'entra-1')).claims()?.sub, user.id);
    // Another person given the user's email there is not that user.
    idp.people.set('entra-2', { email: user.email, email_verified: true });
    const other = await refusalOf(t, config, 'Entra', 'entra-2');
    assert.equal(other.status, 403);
    assert.match(other.text, /signs in with another account at Entra/);
    // An email the provider does not vouch for matches no one.
    const unverified = await addUser(t);
    idp.people.set('entra-3', { email: unverified.email, email_verified: false });
    assert.match((await refusalOf(t, config, 'Entra', 'entra-3')).text, /Your account at Entra is not a user here/);
  });

  test('an unknown person is refused, unless the provider creates users: then a new user, no password, no roles', async () => {
    const t = await createTestTenant(app);
    const idp = await startIdp(t);
    const provider = await addProvider(t, idp);
    const config = await registerApp(t);
    idp.people.set('okta-new', {
      email: 'Grace.Hopper@example.org',
      email_verified: true,
      given_name: 'Grace',
      family_name: 'Hopper',
    });

    const refused = await refusalOf(t, config, 'Okta', 'okta-new');
    assert.equal(refused.status, 403);
    assert.match(refused.text, /Your account at Okta is not a user here/);
    assert.match(refused.text, /Back to sign-in/);

    assert.equal((await t.api.patch(`${t.admin}/identity-providers/${provider.id}`, { createUsers: true })).status, 200);
    const tokens = await tokensOf(t, config, 'Okta', 'okta-new');
    const id = tokens.claims()?.sub ?? '';
    const created = await t.api.get(`${t.admin}/users/${id}?type=ID`);
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.username, 'grace.hopper@example.org');
    assert.equal(created.body.email, 'Grace.Hopper@example.org');
    assert.equal(created.body.firstName, 'Grace');
    assert.equal(created.body.lastName, 'Hopper');
    assert.equal(created.body.passwordAccess, false);
    assert.equal(created.body.ssoAccess, true);
    assert.deepEqual(created.body.roles ?? [], []);
    const audit = await t.api.get(`${t.admin}/audit-data?action=USER_CREATED&size=10`);
    assert.deepEqual(
      (audit.body.data as { entityId: string; actorName: string }[]).map((entry) => [entry.entityId, entry.actorName]),
      [[id, 'SYSTEM:single-sign-on']],
    );
    // The second time they are that user, not a new one.
    assert.equal((await tokensOf(t, config, 'Okta', 'okta-new')).claims()?.sub, id);

    // A disabled user, or one not allowed single sign-on, is refused.
    assert.equal((await t.api.patch(`${t.admin}/users/${id}?type=ID`, { enabled: false })).status, 200);
    assert.match((await refusalOf(t, config, 'Okta', 'okta-new')).text, /disabled, or may not sign in with Okta/);
    const withoutSso = await addUser(t, { ssoAccess: false });
    idp.people.set('okta-2', { email: withoutSso.email, email_verified: true });
    assert.equal((await refusalOf(t, config, 'Okta', 'okta-2')).status, 403);
  });

  test('the provider’s answer is good once, and only in the browser that started the sign-in', async () => {
    const t = await createTestTenant(app);
    const idp = await startIdp(t);
    await addProvider(t, idp);
    const config = await registerApp(t);
    const user = await addUser(t);
    idp.people.set('okta-1', { email: user.email, email_verified: true });

    // An unknown state, or none.
    for (const query of ['?state=made-up&code=x', '']) {
      const page = await new Browser().request(`${fhirBase(t)}/oauth/sso/callback${query}`);
      assert.equal(page.status, 400);
      assert.match(page.text, /expired or was used already/);
    }

    const { browser, page } = await toSignInPage(t, config);
    const callback = await atProvider(browser, page, 'Okta', 'okta-1');
    // Carried to another browser (a link sent to someone): refused there, without using it up.
    const elsewhere = await new Browser().follow(callback);
    assert.equal(elsewhere.status, 400);
    const onward = await browser.request(callback);
    assert.equal(onward.status, 303);
    assert.match(onward.location ?? '', /\/oauth\/interaction\/[^/]+\/sso-done\?/);
    const done = await browser.request(onward.location ?? '');
    assert.equal(done.status, 303, done.text);
    // The same answer again, before the sign-in even resumed: refused.
    const replayed = await browser.request(onward.location ?? '');
    assert.equal(replayed.status, 400);
    assert.match(replayed.text, /expired or was used already/);
    // The first one goes on to the consent page.
    const consent = await browser.follow(done.location ?? '');
    assert.match(consent.text, /Allow Vitals viewer\?/);
  });
});

describe('identity providers: the admin API', () => {
  test('create, read, change, delete; the secret never answered; audited; its callbacks shown', async () => {
    const t = await createTestTenant(app);
    const created = await t.api.post(`${t.admin}/identity-providers`, {
      name: 'Okta',
      issuer: 'https://example.okta.com',
      clientId: 'cairn-client',
      clientSecret: 'a-very-secret-value',
    });
    assert.equal(created.status, 201, created.text);
    assert.doesNotMatch(created.text, /a-very-secret-value/);
    assert.equal(created.body.clientSecretSet, true);
    assert.equal(created.body.matchClaim, 'email');
    assert.equal(created.body.createUsers, false);
    assert.equal(created.body.enabled, true);
    assert.deepEqual(
      (created.body.redirectUris as string[]).map((uri) => new URL(uri).pathname),
      [`${t.base}/fhir/R4/oauth/sso/callback`],
    );
    const id = created.body.id as string;

    const list = await t.api.get(`${t.admin}/identity-providers`);
    assert.deepEqual(
      (list.body.data as { id: string }[]).map((provider) => provider.id),
      [id],
    );
    const changed = await t.api.patch(`${t.admin}/identity-providers/${id}`, { clientSecret: null, matchClaim: 'sub' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.clientSecretSet, false);
    assert.equal(changed.body.matchClaim, 'sub');
    assert.equal((await t.api.post(`${t.admin}/identity-providers`, { ...created.body, clientSecret: 'x' })).status, 409);

    assert.equal((await t.api.delete(`${t.admin}/identity-providers/${id}`)).status, 204);
    assert.equal((await t.api.get(`${t.admin}/identity-providers/${id}`)).body[0]?.errorCode, 'IDENTITY_PROVIDER_NOT_FOUND');
    const audit = await auditOf(t, { entityType: 'IDENTITY_PROVIDER' });
    assert.deepEqual(audit.map((entry) => entry.action).sort(), [
      'IDENTITY_PROVIDER_CREATED',
      'IDENTITY_PROVIDER_DELETED',
      'IDENTITY_PROVIDER_UPDATED',
    ]);
    assert.deepEqual(audit.find((entry) => entry.action === 'IDENTITY_PROVIDER_UPDATED')?.changedFields, [
      'clientSecret',
      'matchClaim',
    ]);
  });

  test('400 for bad input, 401 without a token, 403 without the permission, 404 for a missing one or another tenant’s', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const good = { name: 'Okta', issuer: 'https://example.okta.com', clientId: 'cairn' };
    for (const bad of [
      { ...good, issuer: 'http://example.okta.com' },
      { ...good, issuer: 'ftp://example.okta.com' },
      { ...good, issuer: 'https://example.okta.com/?x=1' },
      { ...good, issuer: 'not a url' },
      { ...good, matchClaim: 'phone' },
      { ...good, clientId: '' },
      { ...good, createUsers: 'yes' },
      { name: 'Okta', issuer: 'https://example.okta.com' },
    ]) {
      const answer = await t.api.post(`${t.admin}/identity-providers`, bad);
      assert.equal(answer.status, 400, `${JSON.stringify(bad)}: ${answer.text}`);
      assert.equal(answer.body[0]?.errorCode, 'VALIDATION_ERROR');
    }
    // http on this machine is for development.
    const local = await t.api.post(`${t.admin}/identity-providers`, { ...good, issuer: 'http://localhost:8080/realms/x' });
    assert.equal(local.status, 201, local.text);
    const id = local.body.id as string;
    assert.equal((await t.api.patch(`${t.admin}/identity-providers/${id}`, { issuer: 'http://idp.example' })).status, 400);

    assert.equal((await t.anonymous.get(`${t.admin}/identity-providers`)).status, 401);
    const reader = await t.apiWith(['IDENTITY_PROVIDER_READ']);
    assert.equal((await reader.get(`${t.admin}/identity-providers/${id}`)).status, 200);
    const denied = await reader.patch(`${t.admin}/identity-providers/${id}`, { enabled: false });
    assert.equal(denied.status, 403);
    assert.equal(denied.body[0]?.errorCode, 'ACCESS_DENIED');
    const appAdmin = await t.apiWith(['APP_READ', 'APP_WRITE']);
    assert.equal((await appAdmin.get(`${t.admin}/identity-providers`)).status, 403);

    const missing = await t.api.get(`${t.admin}/identity-providers/01900000-0000-7000-8000-000000000000`);
    assert.equal(missing.status, 404);
    // Another tenant sees none of them, by its own path or by A's.
    assert.equal((await other.api.get(`${other.admin}/identity-providers/${id}`)).status, 404);
    assert.equal((await other.api.patch(`${other.admin}/identity-providers/${id}`, { enabled: false })).status, 404);
    assert.equal((await other.api.delete(`${other.admin}/identity-providers/${id}`)).status, 404);
    assert.deepEqual((await other.api.get(`${other.admin}/identity-providers`)).body.data, []);
    assert.equal((await other.api.get(`${t.admin}/identity-providers/${id}`)).status, 403);
    assert.equal((await t.api.get(`${t.admin}/identity-providers/${id}`)).body.enabled, true);
  });
});

describe('one shard per statement', { skip: app.services.dbKind !== 'citus' && 'only on a Citus coordinator' }, () => {
  test("every statement of single sign-on's flows and admin routes runs on one shard (EXPLAIN on the coordinator)", async () => {
    stopCapture(sent);
    const problems = await routerPlanProblems(app.services.db, sent);
    assert.deepEqual(
      problems.map(({ statement, problem }) => `${problem}: ${statement}`),
      [],
      `${problems.length} of ${sent.size} statements are not router plans`,
    );
  });
});
