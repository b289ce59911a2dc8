import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { createTestTenant, startApp } from '../test/harness.ts';

/**
 * In a real browser (Debian's chromium, headless): the docs page works under its CSP, and a
 * browser app on an allowed origin can call the API with every method. CI installs chromium;
 * without it these tests are skipped, saying so.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}`;

// A browser app on another origin: a blank page of its own, and the API allowing that origin.
const appServer = http.createServer((_request, response) => response.end('<html><body>app</body></html>'));
await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
const appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
const app = await startApp({ corsOrigins: [appOrigin] });
await app.server.listen({ port: 0, host: '127.0.0.1' });
// `localhost`, not 127.0.0.1: another origin than the app's, so every call is cross-origin.
const apiBase = `http://localhost:${(app.server.server.address() as AddressInfo).port}`;
after(() => appServer.close());

describe('in a browser', { skip }, () => {
  let browser: Browser;

  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // The machine has no network: without these, chromium keeps trying to reach Google's hosts.
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });

  after(async () => {
    await browser?.close();
  });

  test('/docs renders every tag under its CSP, with no console errors', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${apiBase}/docs/`, { waitUntil: 'networkidle' });
    // Swagger UI parses the whole document (some 200 operations) first: slow on a busy 2-core machine.
    await page.waitForSelector('.opblock-tag', { timeout: 60_000 });
    assert.ok((await page.locator('.opblock-tag').count()) >= 10);
    await page.locator('.opblock-tag').first().click();
    await page.waitForSelector('.opblock', { timeout: 5_000 });
    assert.deepEqual(problems, []);
  });

  test('a browser app on an allowed origin calls routes of every method and reads the answers', async () => {
    const t = await createTestTenant(app);
    const page = await browser.newPage();
    await page.goto(appOrigin);
    const calls = [
      ['POST', `${t.base}/patients`, { firstName: 'Web', lastName: 'App' }],
      ['GET', `${t.base}/patients`, undefined],
      ['PATCH', `${t.base}/patients`, { ids: [], timezone: 'US/Eastern' }],
      ['PUT', `${t.base}/patients/00000000-0000-0000-0000-000000000000/care-plan/overview`, { overview: 'x' }],
      ['DELETE', `${t.base}/patients/00000000-0000-0000-0000-000000000000`, undefined],
    ] as const;
    for (const [method, path, body] of calls) {
      const [status, requestId] = await page.evaluate(
        async ({ url, method, token, body }) => {
          const response = await fetch(url, {
            method,
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return [response.status, response.headers.get('x-request-id')] as const;
        },
        { url: `${apiBase}${path}`, method, token: t.adminClient.token, body },
      );
      assert.ok(status < 500 && status !== 0, `${method} ${path}: ${status}`);
      assert.ok(requestId, `${method}: the app reads exposed headers`);
    }
  });
});
