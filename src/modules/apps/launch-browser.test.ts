import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, type TestContext, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createPatient, createTestTenant, createUserWithPassword, startApp, type TestTenant } from '../../test/harness.ts';
import { enrolTotp } from '../../test/totp.ts';

/**
 * SMART App Launch in a real browser (Debian's chromium, headless; skipped, saying so, without it):
 * a standalone patient launch by SMART's own JavaScript client (fhirclient) from an app on another
 * origin, and Cairn's sign-in, code, enrolment and consent pages checked with axe-core and the
 * keyboard. apps.test.ts covers the same flows over HTTP, step by step.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}`;
const require = createRequire(import.meta.url);
/** fhirclient's browser bundle (the global `FHIR`), as its README has apps load it. */
const FHIR_CLIENT_JS = fs.readFileSync(require.resolve('fhirclient/build/fhir-client.js'));
const AXE_JS = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PASSWORD = 'correct horse battery';

/**
 * The app: a launch page that starts the authorization (its configuration in its query), and a
 * redirect page that completes it, reads the patient and searches, and writes what it got into the
 * page. `/callback` is a blank redirect page for the tests that only look at Cairn's pages.
 */
const LAUNCH_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Launch</title>
<script src="/fhir-client.js"></script></head><body><p id="status">Launching</p><script>
const params = new URLSearchParams(location.search);
FHIR.oauth2.authorize({
  clientId: params.get('clientId'),
  scope: 'openid fhirUser launch/patient patient/Patient.rs',
  redirectUri: location.origin + '/redirect.html',
  iss: params.get('iss'),
  pkceMode: 'required',
}).catch((error) => {
  const status = document.getElementById('status');
  status.dataset.state = 'error';
  status.textContent = String(error);
});
</script></body></html>`;

const REDIRECT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App</title>
<script src="/fhir-client.js"></script></head><body><p id="status">Signing in</p><pre id="result"></pre><script>
const status = document.getElementById('status');
FHIR.oauth2.ready().then(async (client) => {
  window.smart = client;
  const patient = await client.patient.read();
  const bundle = await client.request('Patient');
  document.getElementById('result').textContent = JSON.stringify({
    patientId: client.patient.id,
    fhirUser: client.getFhirUser(),
    scope: client.state.tokenResponse.scope,
    read: { resourceType: patient.resourceType, id: patient.id, family: patient.name?.[0]?.family },
    searched: (bundle.entry ?? []).map((entry) => entry.resource.id),
  });
  status.dataset.state = 'ready';
  status.textContent = 'Ready';
}).catch((error) => {
  status.dataset.state = 'error';
  status.textContent = String(error);
});
</script></body></html>`;

const appServer = http.createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://app').pathname;
  const pages: Record<string, [string, string | Buffer]> = {
    '/fhir-client.js': ['text/javascript', FHIR_CLIENT_JS],
    '/launch.html': ['text/html', LAUNCH_PAGE],
    '/redirect.html': ['text/html', REDIRECT_PAGE],
    '/callback': ['text/html', '<!doctype html><html lang="en"><title>Back</title><p>Back in the app</p></html>'],
    // Asked for by the browser on every page: answered, so the test sees no failed load.
    '/favicon.ico': ['image/x-icon', ''],
  };
  const [type, body] = pages[path] ?? ['text/plain', 'not found'];
  response.writeHead(pages[path] ? 200 : 404, { 'content-type': type });
  response.end(body);
});
await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
after(() => appServer.close());
// The app on `localhost` (an http redirect URI is allowed there), Cairn on 127.0.0.1: two origins,
// so the app's every call to Cairn (discovery, token, FHIR) is cross-origin, as in production.
const appOrigin = `http://localhost:${(appServer.address() as AddressInfo).port}`;
// The FHIR API allows the app's origin by configuration; the token endpoint allows it as the
// origin of the app's registered redirect URI (clientBasedCORS in oauth/provider.ts).
const app = await startApp({ corsOrigins: [appOrigin] });
const origin = await app.server.listen({ port: 0, host: '127.0.0.1' });
const fhirBase = (t: TestTenant) => `${origin}${t.base}/fhir/R4`;

const PATIENT_APP_SCOPES = ['openid', 'fhirUser', 'launch/patient', 'patient/*.rs'];

/** A public app (PKCE alone) of that redirect URI and those scopes. */
async function registerApp(t: TestTenant, redirectUri: string, scopes = PATIENT_APP_SCOPES) {
  const response = await t.api.post(`${t.admin}/apps`, {
    name: 'Patient viewer',
    clientType: 'PUBLIC',
    redirectUris: [redirectUri],
    scopes,
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; clientId: string };
}

const userWithPassword = (t: TestTenant) => createUserWithPassword(t, { role: 'admin', password: PASSWORD });

/** An authorization request as any app sends it (S256 PKCE), for the tests that look at the pages only. */
function authorizeUrl(t: TestTenant, clientId: string, scope: string, redirectUri = `${appOrigin}/callback`) {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state: randomBytes(16).toString('base64url'),
    aud: fhirBase(t),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${fhirBase(t)}/oauth/authorize?${query}`;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe("in a browser: SMART apps and Cairn's authorization pages", { skip }, () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // The machine has no network: without these, chromium keeps trying to reach Google's hosts.
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });

  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A page in a fresh context (its own cookies and storage), collecting script errors and CSP refusals. */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.location().url || page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
    return { page, problems };
  }

  /**
   * axe-core on the page as it is: every violation reported (as a diagnostic), none serious or
   * critical allowed. The pages' CSP (`default-src 'none'`) would refuse a <script> of axe's; axe is
   * evaluated through the DevTools protocol (page.evaluate), which the page's CSP does not govern,
   * so the pages are checked under their real CSP (no bypassCSP).
   */
  async function checkAccessibility(context: TestContext, page: Page, label: string) {
    await page.evaluate(AXE_JS);
    const { passes, violations } = await page.evaluate(async () => {
      const axe = (globalThis as any).axe as { run(): Promise<{ passes: unknown[]; violations: AxeViolation[] }> };
      const result = await axe.run();
      return {
        passes: result.passes.length,
        violations: result.violations.map(({ id, impact, help, nodes }) => ({
          id,
          impact,
          help,
          nodes: nodes.map((node) => ({ target: node.target })),
        })),
      };
    });
    assert.ok(passes > 0, `${label}: axe ran its rules`);
    if (violations.length === 0) context.diagnostic(`${label}: axe found no violation`);
    for (const violation of violations) {
      context.diagnostic(
        `${label}: axe ${violation.id} (${violation.impact}): ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`,
      );
    }
    assert.deepEqual(
      violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((v) => v.id),
      [],
      `${label}: axe violations of serious or critical impact`,
    );
  }

  /** The focused element: its id, or its text for a button (run in the page, where `document` is). */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const element = (globalThis as any).document.activeElement as {
        id: string;
        textContent: string | null;
        tagName: string;
      } | null;
      return element?.id || element?.textContent || element?.tagName || '';
    });

  /** Waits until the element of that id has the focus (a page's `autofocus` applies after its load). */
  const focusOn = (page: Page, id: string) =>
    page.waitForFunction((id) => (globalThis as any).document.activeElement?.id === id, id);

  /** The elements Tab reaches, `count` presses on from the focused one. */
  async function tabOrder(page: Page, count: number) {
    const order: string[] = [];
    for (let index = 0; index < count; index++) {
      await page.keyboard.press('Tab');
      order.push(await focused(page));
    }
    return order;
  }

  test('a standalone patient launch with fhirclient: sign in, pick a patient, and the app reads that patient only', async () => {
    const t = await createTestTenant(app);
    const redirectUri = `${appOrigin}/redirect.html`;
    const registered = await registerApp(t, redirectUri);
    const user = await userWithPassword(t);
    const ada = await createPatient(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const bob = await createPatient(t, { firstName: 'Bob', lastName: 'Babbage' });
    const { page, problems } = await newPage();

    // The app's launch page: fhirclient reads the smart-configuration and sends the browser to Cairn.
    const authorizing = page.waitForRequest((request) => request.url().startsWith(`${fhirBase(t)}/oauth/authorize?`));
    await page.goto(`${appOrigin}/launch.html?${new URLSearchParams({ iss: fhirBase(t), clientId: registered.clientId })}`);
    const sent = new URL((await authorizing).url()).searchParams;
    assert.equal(sent.get('code_challenge_method'), 'S256');
    assert.equal(sent.get('aud'), fhirBase(t));
    assert.equal(sent.get('launch'), null, 'a standalone launch');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // The consent page: both patients offered, Ada picked by her label.
    await page.getByRole('group', { name: 'Which patient should the app open?' }).waitFor();
    assert.ok(await page.getByLabel('Babbage, Bob').isVisible());
    await page.getByLabel('Lovelace, Ada').check();
    await page.getByRole('button', { name: 'Allow' }).click();

    // Back in the app: fhirclient trades the code (PKCE) at the token endpoint and reads.
    await page.waitForURL((url) => url.origin === appOrigin && url.pathname === '/redirect.html');
    await page.waitForSelector('#status[data-state]');
    const status = page.locator('#status');
    assert.equal(await status.getAttribute('data-state'), 'ready', (await status.textContent()) ?? '');
    const result = JSON.parse((await page.locator('#result').textContent()) ?? '{}') as {
      patientId: string;
      fhirUser: string;
      scope: string;
      read: { resourceType: string; id: string; family: string };
      searched: string[];
    };
    assert.equal(result.patientId, ada.id, 'the token answer names the patient picked');
    assert.equal(result.fhirUser, `Practitioner/${user.id}`, "the ID token's fhirUser");
    assert.deepEqual(result.scope.split(' ').sort(), ['fhirUser', 'launch/patient', 'openid', 'patient/Patient.rs']);
    assert.deepEqual(result.read, { resourceType: 'Patient', id: ada.id, family: 'Lovelace' });
    assert.deepEqual(result.searched, [ada.id], "a search answers the patient's compartment only");
    assert.deepEqual(problems, []);
    // The other patient, by id, through the app's client: not in the token's compartment.
    const other = await page.evaluate(async (id) => {
      try {
        await (globalThis as any).smart.request(`Patient/${id}`);
        return 200;
      } catch (error) {
        return (error as { status?: number }).status ?? String(error);
      }
    }, bob.id);
    assert.equal(other, 404);
    assert.deepEqual(problems, [
      `${fhirBase(t)}/Patient/${bob.id}: Failed to load resource: the server responded with a status of 404 (Not Found)`,
    ]);
  });

  test('the sign-in, code and consent (patient picker) pages: no serious axe violation, and usable with the keyboard', async (context) => {
    const t = await createTestTenant(app);
    const registered = await registerApp(t, `${appOrigin}/callback`);
    const user = await userWithPassword(t);
    await createPatient(t, { firstName: 'Ada', lastName: 'Lovelace' });
    await createPatient(t, { firstName: 'Bob', lastName: 'Babbage' });
    // A TOTP second factor, added over the API as the user would (docs/identity.md, MFA).
    const signIn = { tenantName: t.tenant.name, username: user.username, password: PASSWORD };
    const { codeAt } = await enrolTotp(app, signIn);
    const { page, problems } = await newPage();

    // Sign-in: the username has the focus; Tab goes to the password, then the button; Enter sends.
    await page.goto(authorizeUrl(t, registered.clientId, 'openid fhirUser launch/patient patient/Patient.rs'));
    await page.getByLabel('Password').waitFor();
    await checkAccessibility(context, page, 'sign-in page');
    await focusOn(page, 'username');
    await page.keyboard.type(user.username);
    assert.deepEqual(await tabOrder(page, 2), ['password', 'Sign in']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');

    // The code page: the code field has the focus, then the button; Enter sends.
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    await checkAccessibility(context, page, 'code page');
    await focusOn(page, 'code');
    // The confirming code is spent: the next step's (docs/identity.md, MFA).
    await page.keyboard.type(codeAt(30_000));
    assert.deepEqual(await tabOrder(page, 1), ['Sign in']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');

    // The consent page with the picker: the search, the patients (one stop, arrows pick), the scopes, the buttons.
    await page.getByRole('group', { name: 'Which patient should the app open?' }).waitFor();
    await checkAccessibility(context, page, 'consent page with the patient picker');
    const order = await tabOrder(page, 7);
    assert.deepEqual(order, ['q', 'Search', 'patient-0', 'scope-0', 'scope-1', 'scope-2', 'Allow']);
    // In the group of patients, an arrow key picks the next one, and back.
    await page.locator('#patient-0').focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(page), 'patient-1');
    assert.ok(await page.locator('#patient-1').isChecked());
    await page.keyboard.press('ArrowUp');
    assert.ok(await page.locator('#patient-0').isChecked());
    // The search answers Enter too: the page again, with what it found.
    await page.locator('#q').focus();
    await page.keyboard.type('Babbage');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('q') === 'Babbage');
    await page.getByLabel('Babbage, Bob').waitFor();
    assert.equal(await page.getByLabel('Lovelace, Ada').count(), 0);
    // The one patient found is checked already; Enter on Allow allows.
    assert.ok(await page.getByLabel('Babbage, Bob').isChecked());
    await page.getByRole('button', { name: 'Allow' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.origin === appOrigin && url.pathname === '/callback');
    assert.ok(new URL(page.url()).searchParams.get('code'), page.url());

    // The error page: a redirect URI the app did not register.
    await page.goto(authorizeUrl(t, registered.clientId, 'openid patient/Patient.rs', `${appOrigin}/elsewhere`));
    await page.getByRole('heading', { name: 'Sign-in cannot go on' }).waitFor();
    await checkAccessibility(context, page, 'error page');
    // Its 400 is what the browser reports of it; nothing else (its stylesheet allowed by its CSP).
    assert.deepEqual(
      problems.filter(
        (problem) => !problem.endsWith('Failed to load resource: the server responded with a status of 400 (Bad Request)'),
      ),
      [],
      'no script error, nothing refused by the CSP',
    );
  });

  test('where the tenant requires MFA, the enrolment and recovery-code pages: no serious axe violation, and usable with the keyboard', async (context) => {
    const t = await createTestTenant(app);
    assert.equal((await t.api.put(`${t.admin}/sign-in-policy`, { mfaRequired: true })).status, 200);
    const registered = await registerApp(t, `${appOrigin}/callback`, ['openid', 'user/*.rs']);
    const user = await userWithPassword(t);
    const { page, problems } = await newPage();

    await page.goto(authorizeUrl(t, registered.clientId, 'openid user/Patient.rs'));
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');

    // Enrolment: the QR code (and its secret in words); the code field has the focus; Enter sends.
    await page.getByRole('heading', { name: 'Add a second factor' }).waitFor();
    await checkAccessibility(context, page, 'enrolment page');
    assert.ok(await page.getByRole('img', { name: 'QR code of the authenticator secret' }).isVisible());
    await focusOn(page, 'code');
    const secret = (await page.locator('main p code').textContent()) ?? '';
    await page.keyboard.type(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    assert.deepEqual(await tabOrder(page, 1), ['Add and sign in']);
    await page.keyboard.press('Enter');

    // The recovery codes: Tab reaches the one button; Enter goes on to the consent page.
    await page.getByRole('heading', { name: 'Keep your recovery codes' }).waitFor();
    await checkAccessibility(context, page, 'recovery codes page');
    assert.equal(await page.locator('main li code').count(), 10);
    assert.deepEqual(await tabOrder(page, 1), ['I have kept them: go on']);
    await page.keyboard.press('Enter');

    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await checkAccessibility(context, page, 'consent page');
    assert.deepEqual(await tabOrder(page, 2), ['scope-0', 'Allow']);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.origin === appOrigin && url.pathname === '/callback');
    assert.ok(new URL(page.url()).searchParams.get('code'), page.url());
    assert.deepEqual(problems, [], 'no script error, nothing refused by the CSP');
  });
});
