import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';
import { registerConsole } from './console.ts';

/**
 * The operator's console (console/), served at /console and driven in a real browser (Debian's
 * chromium, headless, as in browser.test.ts) against a listening Cairn: signing in, each page's
 * main action, a 403 shown as such, and axe-core on every page at 1280 and 390 px. The pages on
 * records (patients, formation, calendar, webhooks) have their own files beside this one.
 */
const { app, t, origin, open, signInAsClient, checkAccessibility, shoot } = await consoleBrowser();

describe('serving the console', () => {
  test('/console and its pages answer index.html under the console CSP; built files as they are', async () => {
    for (const url of ['/console', '/console/', '/console/users', '/console/api-clients/x']) {
      const response = await fetch(`${origin}${url}`);
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /connect-src 'self'/);
      assert.match(await response.text(), /<div id="app">/);
    }
    const html = await (await fetch(`${origin}/console/`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'index.html loads a bundle');
    const bundle = await fetch(`${origin}${script}`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal((await fetch(`${origin}/console/assets/none.js`)).status, 404);
    assert.equal((await fetch(`${origin}/console/%2e%2e/%2e%2e/package.json`)).status, 404);
  });

  test('without a built console, /console says so (503, not a 500)', async () => {
    const bare = Fastify();
    registerConsole(bare, path.join(os.tmpdir(), 'no-console-here'));
    const response = await bare.inject({ method: 'GET', url: '/console/users' });
    assert.equal(response.statusCode, 503);
    assert.match(response.body, /console is not built/);
    await bare.close();
  });
});

describe('the console in a browser', { skip: skipBrowser }, () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: sign in, API clients (create, rotate, disable), users (create, search, roles), sign out`, async () => {
      const wide = width === 1280;
      const { page, problems } = await open(width);
      await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();

      // A bad secret shows the API's refusal on the form.
      await checkAccessibility(page, `sign-in at ${width}`);
      if (wide) await shoot(page, 'sign-in');
      await page.getByLabel('An API client').check();
      await page.getByLabel('Tenant').fill(t.tenant.name);
      await page.getByLabel('API client key').fill(t.adminClient.clientKey);
      await page.getByLabel('Secret').fill('not-the-secret');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: '401' }).waitFor();

      await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
      await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/api-clients');

      // The API's field error sits beside the field.
      const made = `console-${width}`;
      await page.getByLabel('Name', { exact: true }).fill('not a valid name!');
      await page.getByRole('button', { name: 'Create client' }).click();
      await page.locator('[data-field-error="name"]').waitFor();
      assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');

      // Create: the secret is shown once, and it signs in.
      await page.getByLabel('Name', { exact: true }).fill(made);
      await page.getByLabel('Role', { exact: true }).fill('patient-reader');
      await page.getByRole('button', { name: 'Create client' }).click();
      await page.locator('[data-testid="secret"], [role="alert"]').first().waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, (await page.getByRole('alert').allTextContents()).join());
      const secret = await page.getByTestId('secret-value').textContent();
      const key = await page.getByTestId('client-key').textContent();
      assert.ok(secret && key);
      const token = await fetch(`${origin}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiClient: key, secret }),
      });
      assert.equal(token.status, 200, 'the shown secret signs in');
      await page.getByRole('button', { name: 'Copy secret' }).click();
      await page.getByRole('button', { name: 'Done' }).click();

      const row = page.locator(`tr[data-client="${made}"]`);
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /sandbox: patient-reader/);
      await page.getByRole('button', { name: `Rotate secret of ${made}` }).click();
      const rotated = await page.getByTestId('secret-value').textContent();
      assert.ok(rotated && rotated !== secret, 'a new secret');
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: `Disable ${made}` }).click();
      await row.filter({ hasText: 'Disabled' }).waitFor();

      // The list pages and filters.
      await page.getByLabel('Name contains').fill(made);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      await checkAccessibility(page, `API clients at ${width}`);
      if (wide) await shoot(page, 'api-clients');

      // Users: a field error, a user made, found by search, given a role.
      await page.getByRole('link', { name: 'Users' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      const username = `console.user.${width}`;
      await page.getByLabel('Username', { exact: true }).fill(username);
      await page.getByLabel('Email', { exact: true }).fill('not-an-email');
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.locator('[data-field-error="email"]').waitFor();
      await page.getByLabel('Email', { exact: true }).fill(`${username}@example.org`);
      await page.getByLabel('First name').fill('Console');
      await page.getByLabel('Last name').fill(`Width${width}`);
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.getByText(`${username} was created`).waitFor();
      await page.getByLabel('Username, email or name contains').fill(username);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      await page.getByRole('button', { name: `Edit roles of ${username}` }).click();
      await page.getByRole('button', { name: 'Add a role' }).click();
      await page.getByLabel('Role 1', { exact: true }).fill('admin');
      await checkAccessibility(page, `users at ${width}`);
      if (wide) await shoot(page, 'users');
      await page.getByRole('button', { name: 'Save roles' }).click();
      await page.locator(`tr[data-user="${username}"]`).filter({ hasText: 'sandbox: admin' }).waitFor();

      // Sign-out drops the token: the sign-in form again, and a reload keeps nothing.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
      assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }

  for (const width of [1280, 390]) {
    test(`at ${width} px: the audit log filtered, and a DEAD job requeued`, async () => {
      const wide = width === 1280;
      // A job out of attempts, as a worker leaves one (workers never run in tests).
      const jobId = randomUUID();
      const user = await t.api.post(`${t.admin}/users`, { username: `audited.${width}`, email: `audited.${width}@example.org` });
      assert.equal(user.status, 201, user.text);
      const now = app.services.clock.now();
      await app.services.db
        .insertInto('jobs')
        .values({
          tenant_id: t.tenant.id,
          id: jobId,
          instance_id: null,
          kind: 'files.remove',
          payload: JSON.stringify({ key: `console-${width}` }) as never,
          state: 'DEAD',
          queue_key: null,
          dedupe_key: null,
          attempts: 5,
          run_at: null,
          locked_by: null,
          last_error: 'ENOENT',
          created_at: now,
          updated_at: now,
        })
        .execute();
      const { page, problems } = await open(width);
      await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
      await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();

      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      await page.getByLabel('Action').fill('USER_CREATED');
      await page.getByRole('button', { name: 'Filter' }).click();
      // The unfiltered page stays until the filtered one arrives: wait for its other rows to go.
      await page.locator('tbody tr:not([data-action="USER_CREATED"])').first().waitFor({ state: 'detached' });
      await page.locator('tr[data-action="USER_CREATED"]').first().waitFor();
      assert.equal(await page.locator('tbody tr:not([data-action="USER_CREATED"])').count(), 0);
      await checkAccessibility(page, `audit log at ${width}`);
      if (wide) await shoot(page, 'audit');

      await page.getByRole('link', { name: 'Jobs' }).click();
      await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
      const row = page.locator(`tr[data-job="${jobId}"]`);
      await row.waitFor();
      await checkAccessibility(page, `jobs at ${width}`);
      if (wide) await shoot(page, 'jobs');
      await row.getByRole('button', { name: 'Requeue' }).click();
      await page.getByText('The files.remove job was requeued').waitFor();
      await row.waitFor({ state: 'detached' });
      const job = await app.services.db.selectFrom('jobs').select('state').where('id', '=', jobId).executeTakeFirst();
      assert.equal(job?.state, 'QUEUED');
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }

  test('an operator without the permission sees the 403 from the API', async () => {
    const reader = await t.clientWithRole('patient-reader');
    const { page, problems } = await open(1280);
    await signInAsClient(page, reader.clientKey, reader.secret);
    await page.getByRole('alert').filter({ hasText: 'Access denied (403 ACCESS_DENIED)' }).waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /API_CLIENT_READ/);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('alert').filter({ hasText: 'Access denied (403 ACCESS_DENIED)' }).waitFor();
    await checkAccessibility(page, 'the 403');
    await shoot(page, 'access-denied');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
