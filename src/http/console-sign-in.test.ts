import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';
import { createUserWithPassword } from '../test/harness.ts';
import { enrolTotp } from '../test/totp.ts';

/**
 * A person signs in to the console through the instance's sign-in page, as an app would (the console
 * is a public client with PKCE: console/src/oauth.ts, modules/apps/oauth/console.ts): the password,
 * then the code of their second factor; the console then calls the API with that token, and signing
 * out ends the session at the authorization server too. In headless chromium.
 */

const { app, t, origin, open, checkAccessibility } = await consoleBrowser();
const PASSWORD = 'console correct horse battery';

describe('a person signs in to the console on the instance sign-in page', { skip: skipBrowser }, () => {
  test('password, then the TOTP code; the console works with the token; sign-out ends the session', async () => {
    const { username } = await createUserWithPassword(t, { role: 'admin', password: PASSWORD, username: 'casey.console' });
    const { codeAt } = await enrolTotp(app, { tenantName: t.tenant.name, username, password: PASSWORD });

    const { page, problems } = await open(1280, { path: 'users' });
    await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    await page.getByLabel('Tenant').fill(t.tenant.name);
    await page.getByRole('button', { name: 'Continue to sign in' }).click();

    // Cairn's own page, on the instance's authorization server.
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    assert.match(new URL(page.url()).pathname, /\/fhir\/R4\/oauth\/interaction\//);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not right' }).waitFor();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    await checkAccessibility(page, 'the code page');
    // The confirming code's step is spent: the next step's code.
    await page.getByLabel('Code').fill(codeAt(30_000));
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Back in the console, on the page asked for, signed in as the person: the API answers the token.
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/users');
    assert.equal(new URL(page.url()).search, '', 'the code leaves the address bar');
    await page.getByText('Joy Nurse').first().waitFor();

    // Sign-out: Cairn's page asks, then the console again; a new sign-in asks for the password again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign out?' }).waitFor();
    await checkAccessibility(page, 'the sign-out page');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    await page.getByLabel('Tenant').fill(t.tenant.name);
    await page.getByRole('button', { name: 'Continue to sign in' }).click();
    await page.getByLabel('Password').waitFor();
    assert.deepEqual(problems, []);
  });

  test('a person adds a second factor in the console: the QR code, its first code, the recovery codes once', async () => {
    const { username } = await createUserWithPassword(t, { role: 'admin', password: PASSWORD });
    const { page, problems } = await open(1280, { path: 'second-factor' });
    await page.getByLabel('Tenant').fill(t.tenant.name);
    await page.getByRole('button', { name: 'Continue to sign in' }).click();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Second factor', level: 1 }).waitFor();

    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Add an authenticator' }).click();
    await page.getByRole('img', { name: 'QR code of your authenticator secret' }).waitFor();
    await checkAccessibility(page, 'the second-factor page');
    const secret = (await page.locator('section code').first().textContent()) ?? '';
    await page.getByLabel('Code', { exact: true }).fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    assert.equal(await page.getByTestId('recovery-codes').locator('li').count(), 10);
    const token = await fetch(`${origin}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenantName: t.tenant.name, username, password: PASSWORD }),
    });
    assert.equal(token.status, 401, 'the password alone no longer signs in');
    assert.deepEqual(problems, []);
  });
});
