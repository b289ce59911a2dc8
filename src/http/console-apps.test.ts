import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';
import { createPatient } from '../test/harness.ts';

/**
 * The console's Apps page (register a SMART app, its secret shown once, disable, remove) and the
 * EHR launch from a patient's page: the app opens in a new tab at its launch URL with `iss` and a
 * `launch` value. In headless chromium.
 */

const { t, open, signInAsClient, checkAccessibility } = await consoleBrowser();

// The app's launch page: a page of its own, on another origin.
const launched: string[] = [];
const appServer = http.createServer((request, response) => {
  launched.push(request.url ?? '');
  response.setHeader('content-type', 'text/html');
  response.end('<!doctype html><html lang="en"><title>App</title><body>app</body></html>');
});
await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
const launchUrl = `http://localhost:${(appServer.address() as AddressInfo).port}/launch`;
after(() => appServer.close());

describe('the console: SMART apps', { skip: skipBrowser }, () => {
  test('register an app (secret once), open it from a patient page (EHR launch), disable and remove it', async () => {
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Launchable' });
    const { page, problems } = await open(1280, { path: 'apps' });
    await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();

    // A bad redirect URI is said beside its field.
    await page.getByLabel('Name', { exact: true }).fill('Vitals viewer');
    await page.getByLabel('Kind').selectOption('CONFIDENTIAL_SYMMETRIC');
    await page.getByLabel('Redirect URIs').fill('http://app.example/callback');
    await page.getByLabel('Opened from a patient').check();
    await page.getByLabel('Launch URL').fill(launchUrl);
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.locator('[data-field-error="app-redirects"]').waitFor();
    await page.getByLabel('Redirect URIs').fill('http://localhost:5173/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByTestId('secret').waitFor();
    assert.ok((await page.getByTestId('secret-value').textContent())?.length);
    await page.locator('tr[data-app="Vitals viewer"]').waitFor();
    await checkAccessibility(page, 'apps');

    // The patient's page opens it in a new tab, at its launch URL with iss and launch.
    await page.goto(page.url().replace(/\/console\/.*$/, `/console/patients/${patient.id}`));
    await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
    const button = page.getByRole('button', { name: 'Open in Vitals viewer' });
    const [tab] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    await tab.waitForURL(/\/launch\?/);
    const opened = new URL(tab.url());
    assert.match(opened.searchParams.get('iss') ?? '', new RegExp(`/${t.tenant.name}/sandbox/fhir/R4$`));
    assert.ok(opened.searchParams.get('launch'));
    // The launch page was asked for once (a browser may ask for /favicon.ico too, at any moment).
    assert.equal(launched.filter((url) => url.startsWith('/launch?')).length, 1);
    await tab.close();

    // Disabled, it is offered no more; removed, it is gone.
    await page.getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('button', { name: 'Disable Vitals viewer' }).click();
    await page.getByRole('button', { name: 'Enable Vitals viewer' }).waitFor();
    const apps = await t.api.get(`${t.base}/apps`);
    assert.deepEqual(apps.body, { data: [] });
    await page.getByRole('button', { name: 'Remove Vitals viewer' }).click();
    await page.getByText('No apps are registered.').waitFor();
    assert.deepEqual(problems, []);
  });
});
