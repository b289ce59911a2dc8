import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { Secret, TOTP } from 'otpauth';
import { Browser, postAction } from '../../test/browser.ts';
import {
  createPatient,
  createTestTenant,
  createUserWithPassword,
  startApp,
  TEST_PASSWORD,
  type TestTenant,
} from '../../test/harness.ts';
import { routerPlanProblems } from '../../test/router-plans.ts';
import { captureStatements, stopCapture } from '../../test/statements.ts';
import { enrolTotp } from '../../test/totp.ts';

/**
 * SMART App Launch 2.0 (docs/identity.md): an administrator registers an app; a user signs in on
 * Cairn's page and allows it; the app, an outside relying party (openid-client), trades the code
 * (with PKCE) for tokens and reads the FHIR API within both its scopes and the user's role.
 */

// Exports read up to now, not a settling moment ago: the export's rows are just written.
const app = await startApp({}, { env: { CAIRN_EXPORT_SETTLE_MS: '0' } });
/** Every statement the flows send, for the router-plan check on Citus (end of file). */
const sent = captureStatements();
const origin = await app.server.listen({ port: 0, host: '127.0.0.1' });
after(() => app.server.close());

const REDIRECT = 'http://localhost:5173/callback';
const PASSWORD = TEST_PASSWORD;

async function registerApp(t: TestTenant, body: Record<string, unknown> = {}) {
  const response = await t.api.post(`${t.admin}/apps`, {
    name: `app-${Math.random().toString(36).slice(2, 8)}`,
    clientType: 'PUBLIC',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'fhirUser', 'offline_access', 'user/*.rs'],
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; clientId: string; clientSecret: string | null };
}

const userWithPassword = (t: TestTenant, role = 'patient-reader') => createUserWithPassword(t, { role });

const fhirBase = (t: TestTenant) => `${origin}${t.base}/fhir/R4`;

async function discover(t: TestTenant, clientId: string, secret?: string) {
  return oidc.discovery(new URL(fhirBase(t)), clientId, secret, secret ? oidc.ClientSecretBasic(secret) : oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
}

/** An app's authorization request (PKCE S256, state) opened in a new browser: the browser on Cairn's sign-in page. */
async function startAuthorization(t: TestTenant, config: oidc.Configuration, scope: string, launch?: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    aud: fhirBase(t),
    ...(launch ? { launch } : {}),
  });
  const browser = new Browser(origin);
  const start = await browser.request(url.href);
  assert.equal(start.status, 303, start.text);
  const signInPage = await browser.request(start.location ?? '');
  assert.equal(signInPage.status, 200, signInPage.text);
  assert.match(signInPage.text, /<form method="post"/);
  return { browser, signInPage: signInPage.text, verifier, state };
}

/** The whole authorization: the app's URL, sign-in, consent (what `allow` leaves checked), back to the app. */
async function authorize(
  t: TestTenant,
  config: oidc.Configuration,
  username: string,
  {
    scope = 'openid fhirUser offline_access user/Patient.rs user/Task.rs',
    allow,
    launch,
    patient,
    code,
  }: { scope?: string; allow?: string[]; launch?: string; patient?: string; code?: () => string } = {},
) {
  const { browser, signInPage, verifier, state } = await startAuthorization(t, config, scope, launch);
  const action = postAction(signInPage);
  let signedIn = await browser.request(action, { form: { username, password: PASSWORD } });
  if (code) {
    // A user with a second factor: the code page, then on.
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.match(signedIn.text, /Enter your code/);
    signedIn = await browser.request(postAction(signedIn.text), { form: { code: code() } });
  }
  assert.equal(signedIn.status, 303, signedIn.text);
  const resumed = await browser.request(signedIn.location ?? '');
  assert.equal(resumed.status, 303, resumed.text);
  const consentPage = await browser.request(resumed.location ?? '');
  assert.equal(consentPage.status, 200, consentPage.text);
  const offered = [...consentPage.text.matchAll(/name="scope" value="([^"]+)"/g)].map((match) => match[1] ?? '');
  const consentAction = /<form method="post" action="([^"]+)"/.exec(consentPage.text)?.[1] ?? '';
  const form = { decision: 'allow', scope: allow ?? offered, ...(patient ? { patient } : {}) };
  const consented = await browser.request(consentAction, { form });
  assert.equal(consented.status, 303, consented.text);
  const back = await browser.request(consented.location ?? '');
  assert.equal(back.status, 303, back.text);
  assert.ok(back.location?.startsWith(REDIRECT), back.location);
  return { callback: new URL(back.location ?? ''), verifier, state, offered, consentPage: consentPage.text };
}

/** Up to the consent page: the browser on it, and the page. */
async function consentPageOf(t: TestTenant, config: oidc.Configuration, username: string, scope: string) {
  const { browser, signInPage } = await startAuthorization(t, config, scope);
  const signedIn = await browser.request(postAction(signInPage), { form: { username, password: PASSWORD } });
  const resumed = await browser.request(signedIn.location ?? '');
  const page = await browser.request(resumed.location ?? '');
  assert.equal(page.status, 200, page.text);
  return { browser, page: page.text, url: resumed.location ?? '' };
}

async function fhirGet(token: string, url: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('SMART App Launch: an app acts for a user who allows it', () => {
  test('discovery, sign-in, consent, code with PKCE, tokens that read within the scopes and the role, refresh, revocation', async () => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t);
    const user = await userWithPassword(t);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Lovelace' });

    const smart = (await fetch(`${fhirBase(t)}/.well-known/smart-configuration`).then((r) => r.json())) as Record<
      string,
      string[]
    > & { capabilities: string[] };
    assert.equal(smart.authorization_endpoint, `${fhirBase(t)}/oauth/authorize`);
    assert.equal(smart.token_endpoint, `${fhirBase(t)}/oauth/token`);
    assert.deepEqual(smart.code_challenge_methods_supported, ['S256']);
    assert.ok(smart.capabilities.includes('launch-standalone'));

    const config = await discover(t, registered.clientId);
    assert.equal(config.serverMetadata().issuer, fhirBase(t));
    const { callback, verifier, state, offered } = await authorize(t, config, user.username);
    assert.deepEqual(offered, ['fhirUser', 'offline_access', 'user/Patient.rs', 'user/Task.rs']);

    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    assert.ok(tokens.refresh_token);
    assert.equal(tokens.scope?.split(' ').sort().join(' '), 'fhirUser offline_access openid user/Patient.rs user/Task.rs');
    const claims = tokens.claims();
    assert.equal(claims?.sub, user.id);
    assert.equal(claims?.fhirUser, `${fhirBase(t)}/Practitioner/${user.id}`);

    // Patient: in the scopes and the role. Task: in the scopes, not in the role.
    const read = await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient/${patient.id}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Task`)).status, 403);
    // The token is for the FHIR API of this instance only.
    assert.equal((await fhirGet(tokens.access_token, `${origin}${t.base}/patients/${patient.id}`)).status, 403);

    // A refresh rotates; the old refresh token used again revokes the family.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal((await fhirGet(refreshed.access_token, `${fhirBase(t)}/Patient/${patient.id}`)).status, 200);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token), { error: 'invalid_grant' });
    assert.equal((await fhirGet(refreshed.access_token, `${fhirBase(t)}/Patient/${patient.id}`)).status, 401);
  });

  test("the user may allow less than the app asks; revocation ends a token at once; a disabled app's tokens stop", async () => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t, { clientType: 'CONFIDENTIAL_SYMMETRIC' });
    assert.ok(registered.clientSecret);
    const user = await userWithPassword(t, 'admin');
    const config = await discover(t, registered.clientId, registered.clientSecret ?? '');
    const { callback, verifier, state } = await authorize(t, config, user.username, { allow: ['user/Patient.rs'] });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(tokens.scope?.split(' ').sort().join(' '), 'openid user/Patient.rs');
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient`)).status, 200);
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Task`)).status, 403);

    const introspected = await oidc.tokenIntrospection(config, tokens.access_token);
    assert.equal(introspected.active, true);
    await oidc.tokenRevocation(config, tokens.access_token);
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient`)).status, 401);

    const again = await authorize(t, config, user.username);
    const second = await oidc.authorizationCodeGrant(config, again.callback, {
      pkceCodeVerifier: again.verifier,
      expectedState: again.state,
    });
    assert.equal((await fhirGet(second.access_token, `${fhirBase(t)}/Patient`)).status, 200);
    assert.equal((await t.api.patch(`${t.admin}/apps/${registered.id}`, { enabled: false })).status, 200);
    assert.equal((await fhirGet(second.access_token, `${fhirBase(t)}/Patient`)).status, 401);
  });
});

describe('SMART EHR launch: the app opens with the patient on screen', () => {
  test('a launch value names the patient in the token answer, for that app and the user who opened it only', async () => {
    const t = await createTestTenant(app);
    assert.equal(
      (
        await t.api.post(`${t.admin}/apps`, {
          name: 'bad',
          clientType: 'PUBLIC',
          redirectUris: [REDIRECT],
          scopes: ['openid'],
          launchUrl: 'http://app.example/launch',
        })
      ).status,
      400,
    );
    const registered = await registerApp(t, {
      scopes: ['openid', 'fhirUser', 'launch', 'user/*.rs'],
      launchKinds: ['EHR'],
      launchUrl: 'http://localhost:5173/launch?from=cairn',
    });
    const user = await userWithPassword(t, 'admin');
    const other = await userWithPassword(t, 'admin');
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const signIn = await fetch(`${origin}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenantName: t.tenant.name, username: user.username, password: PASSWORD }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    const launchFor = async (patientId: string, appId = registered.id) => {
      const response = await fetch(`${origin}${t.base}/apps/${appId}/launch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${signIn.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ patientId }),
      });
      return { status: response.status, body: (await response.json()) as { launch: string; iss: string; url: string | null } };
    };
    const launched = await launchFor(patient.id);
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    assert.equal(launched.body.iss, fhirBase(t));
    // The app's launch URL, to open: its own query kept, iss and launch added.
    const opened = new URL(launched.body.url ?? '');
    assert.equal(`${opened.origin}${opened.pathname}`, 'http://localhost:5173/launch');
    assert.equal(opened.searchParams.get('from'), 'cairn');
    assert.equal(opened.searchParams.get('iss'), fhirBase(t));
    assert.equal(opened.searchParams.get('launch'), launched.body.launch);
    assert.equal((await launchFor('01900000-0000-7000-8000-000000000000')).status, 404);
    const standaloneOnly = await registerApp(t);
    assert.equal((await launchFor(patient.id, standaloneOnly.id)).status, 400);

    const config = await discover(t, registered.clientId);
    const scope = 'openid fhirUser launch user/Patient.rs';
    const { callback, verifier, state } = await authorize(t, config, user.username, { scope, launch: launched.body.launch });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    assert.equal(tokens.patient, patient.id);
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient/${patient.id}`)).status, 200);

    // Another user may not use the launch the first one made.
    const again = await launchFor(patient.id);
    const refused = await authorize(t, config, other.username, { scope, launch: again.body.launch });
    assert.equal(refused.callback.searchParams.get('error'), 'access_denied');
  });
});

describe('SMART standalone patient launch: the user picks the patient, the token reaches that one', () => {
  test('the picker lists the patients the user may read; patient/ scopes reach the patient picked and no other', async () => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t, { scopes: ['openid', 'fhirUser', 'launch/patient', 'patient/*.rs'] });
    const user = await userWithPassword(t, 'admin');
    const ada = await createPatient(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const bob = await createPatient(t, { firstName: 'Bob', lastName: 'Babbage' });
    const config = await discover(t, registered.clientId);
    const scope = 'openid fhirUser launch/patient patient/Patient.rs patient/Appointment.rs';

    // The picker lists both, or what a search finds; consent without a patient is the page again.
    const { browser, page, url } = await consentPageOf(t, config, user.username, scope);
    assert.match(page, /Lovelace, Ada/);
    assert.match(page, /Babbage, Bob/);
    const searched = await browser.request(`${url}?q=Lovelace`);
    assert.match(searched.text, /Lovelace, Ada/);
    assert.doesNotMatch(searched.text, /Babbage/);
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '';
    const withoutPatient = await browser.request(action, {
      form: { decision: 'allow', scope: ['launch/patient', 'patient/Patient.rs'] },
    });
    assert.equal(withoutPatient.status, 400);
    assert.match(withoutPatient.text, /Choose a patient/);
    const elsewhere = await browser.request(action, {
      form: { decision: 'allow', scope: 'patient/Patient.rs', patient: '01900000-0000-7000-8000-000000000000' },
    });
    assert.equal(elsewhere.status, 400);

    const { callback, verifier, state } = await authorize(t, config, user.username, { scope, patient: ada.id });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    assert.equal(tokens.patient, ada.id);
    assert.ok(tokens.scope?.split(' ').includes('patient/Patient.rs'), tokens.scope);

    // Reads, searches and counts hold the compartment.
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient/${ada.id}`)).status, 200);
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient/${bob.id}`)).status, 404);
    const searched2 = await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient`);
    assert.deepEqual(
      (searched2.body.entry as { resource: { id: string } }[]).map((entry) => entry.resource.id),
      [ada.id],
    );
    const counted = await fhirGet(tokens.access_token, `${fhirBase(t)}/Patient?_summary=count`);
    assert.equal(counted.body.total, 1);
    const appointments = await fhirGet(tokens.access_token, `${fhirBase(t)}/Appointment?patient=${bob.id}`);
    assert.equal(appointments.status, 200);
    assert.deepEqual(appointments.body.entry ?? [], []);
    // Outside its scopes: Task is in the user's role but not in the token's.
    assert.equal((await fhirGet(tokens.access_token, `${fhirBase(t)}/Task`)).status, 403);
    // Bulk export: the patient's compartment only, its job running later without the token.
    const kickOff = await fetch(`${fhirBase(t)}/Patient/$export?_type=Patient`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, prefer: 'respond-async', accept: 'application/fhir+json' },
    });
    assert.equal(kickOff.status, 202, await kickOff.text());
    await app.jobs.drain();
    const status = await fetch(kickOff.headers.get('content-location') ?? '', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(status.status, 200);
    const manifest = (await status.json()) as { output: { type: string; url: string }[] };
    assert.equal(manifest.output.length, 1);
    const file = await fetch(manifest.output[0]?.url ?? '', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const lines = (await file.text()).trim().split('\n');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { id: string }).id),
      [ada.id],
    );

    // The access log names the app, acting for the user; the picker's list under the user.
    const log = await t.api.get(`${t.admin}/access-log?actorId=${user.id}&size=100`);
    assert.equal(log.status, 200, log.text);
    const records = (
      log.body as {
        data: { actorType: string; actorId: string; onBehalfOf: string | null; patientIds: string[]; outcome: number }[];
      }
    ).data;
    const byApp = records.filter((record) => record.actorType === 'APP');
    assert.ok(byApp.length > 0);
    assert.ok(byApp.every((record) => record.actorId === registered.id && record.onBehalfOf === `USER:${user.id}`));
    // Disclosed: Ada only; Bob's id appears in the attempt that answered 404.
    const disclosed = byApp.filter((record) => record.outcome < 300);
    assert.ok(disclosed.every((record) => record.patientIds.every((id) => id === ada.id)));
    assert.deepEqual(
      byApp.filter((record) => record.patientIds.includes(bob.id)).map((record) => record.outcome),
      [404],
    );
    const picked = records.filter((record) => record.actorType === 'USER' && record.patientIds.includes(bob.id));
    assert.ok(picked.length > 0, 'the picker list is recorded under the user');
  });

  test('a user who may read no patient is offered none', async () => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t, { scopes: ['openid', 'launch/patient', 'patient/*.rs'] });
    const user = await userWithPassword(t, 'nothing');
    await createPatient(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const config = await discover(t, registered.clientId);
    const { page } = await consentPageOf(t, config, user.username, 'openid launch/patient patient/Patient.rs');
    assert.doesNotMatch(page, /Lovelace/);
    assert.match(page, /No patient found/);
  });
});

describe('MFA on the sign-in page: a password alone never lets an app in', () => {
  test('a user with a second factor is asked for a code; a wrong one is refused, a right one or a recovery code signs in', async () => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t);
    const user = await userWithPassword(t, 'admin');
    const signIn = { tenantName: t.tenant.name, username: user.username, password: PASSWORD };
    const { recoveryCodes, codeAt } = await enrolTotp(app, signIn);
    const config = await discover(t, registered.clientId);

    // The password alone: the code page, and nothing granted; a wrong code is the page again.
    const { browser, signInPage } = await startAuthorization(t, config, 'openid user/Patient.rs');
    const codePage = await browser.request(postAction(signInPage), {
      form: { username: user.username, password: PASSWORD },
    });
    assert.equal(codePage.status, 200);
    assert.match(codePage.text, /autocomplete="one-time-code"/);
    const wrong = await browser.request(postAction(codePage.text), { form: { code: '000000' } });
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /The code is not right/);

    // A code of the next step (the confirming one is spent), then a recovery code, each lets the app in.
    const { callback, verifier, state } = await authorize(t, config, user.username, { code: () => codeAt(30_000) });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    assert.equal(tokens.claims()?.sub, user.id);
    await authorize(t, config, user.username, { code: () => recoveryCodes[0] ?? '' });
    // The recovery code is spent.
    const again = await browser.request(postAction(codePage.text), { form: { code: recoveryCodes[0] ?? '' } });
    assert.equal(again.status, 401);
  });
});

describe('MFA required by the tenant: a user without a factor adds one on the sign-in page', () => {
  test('the QR code and a first code, the recovery codes shown once, then on to the app', async () => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t);
    const user = await userWithPassword(t, 'admin');
    assert.equal((await t.api.put(`${t.admin}/sign-in-policy`, { mfaRequired: true })).status, 200);
    const config = await discover(t, registered.clientId);
    const { browser, signInPage, verifier, state } = await startAuthorization(t, config, 'openid user/Patient.rs');
    const enrolPage = await browser.request(postAction(signInPage), {
      form: { username: user.username, password: PASSWORD },
    });
    assert.equal(enrolPage.status, 200, enrolPage.text);
    assert.match(enrolPage.text, /<img src="data:image\/png;base64,/);
    const secret = /<code>([A-Z2-7]+)<\/code>/.exec(enrolPage.text)?.[1] ?? '';
    const wrong = await browser.request(postAction(enrolPage.text), { form: { code: '000000' } });
    assert.equal(wrong.status, 401);
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    const kept = await browser.request(postAction(enrolPage.text), { form: { code } });
    assert.equal(kept.status, 200, kept.text);
    assert.equal([...kept.text.matchAll(/<li><code>/g)].length, 10, 'ten recovery codes');
    const signedIn = await browser.request(postAction(kept.text), { form: { kept: 'yes' } });
    assert.equal(signedIn.status, 303, signedIn.text);
    const resumed = await browser.request(signedIn.location ?? '');
    const consentPage = await browser.request(resumed.location ?? '');
    assert.equal(consentPage.status, 200, consentPage.text);
    const consented = await browser.request(postAction(consentPage.text), {
      form: { decision: 'allow', scope: 'user/Patient.rs' },
    });
    const back = await browser.request(consented.location ?? '');
    assert.ok(back.location?.startsWith(REDIRECT), back.location);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(back.location ?? ''), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    assert.equal(tokens.claims()?.sub, user.id);
    // The factor is the user's now: /auth/token asks its code.
    const password = await fetch(`${origin}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenantName: t.tenant.name, username: user.username, password: PASSWORD }),
    });
    assert.equal(password.status, 401);
  });
});

describe('one shard per statement', { skip: app.services.dbKind !== 'citus' && 'only on a Citus coordinator' }, () => {
  test("every statement of the authorization servers' flows runs on one shard (EXPLAIN on the coordinator)", async () => {
    stopCapture(sent);
    const problems = await routerPlanProblems(app.services.db, sent);
    assert.deepEqual(
      problems.map(({ statement, problem }) => `${problem}: ${statement}`),
      [],
      `${problems.length} of ${sent.size} statements are not router plans`,
    );
  });
});
