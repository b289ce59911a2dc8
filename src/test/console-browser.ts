import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CONSOLE_DIST } from '../http/console.ts';
import { createTestTenant, startApp, type TestApp, type TestTenant } from './harness.ts';

/**
 * What the console's browser tests share (src/http/console*.test.ts): a listening Cairn with a
 * tenant, Debian's chromium (headless), axe-core, and the page helpers. Each test file is its own
 * process, so the files run side by side.
 * CONSOLE_SCREENSHOTS=1 writes docs/console/<page>.png (the README shows them); CI leaves them be.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const skipBrowser = fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}`;
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const ROOT = path.resolve(import.meta.dirname, '../..');
/** A console built elsewhere (CAIRN_CONSOLE_DIR), e.g. while its pages are being changed. */
const DIST = process.env.CAIRN_CONSOLE_DIR ?? CONSOLE_DIST;

export interface ConsoleBrowser {
  app: TestApp;
  t: TestTenant;
  origin: string;
  /**
   * A page at a width, signed out, collecting console errors other than the API's refusals; at
   * `path` under /console/ (kept through sign-in), in the browser's zone `timezoneId`.
   */
  open(width: number, options?: { path?: string; timezoneId?: string }): Promise<{ page: Page; problems: string[] }>;
  /** Signs in with an API client's key and secret; resolves once the first page shows. */
  signInAsClient(page: Page, key: string, secret: string): Promise<void>;
  /** No axe violation of serious or critical impact. */
  checkAccessibility(page: Page, label: string): Promise<void>;
  /** docs/console/<name>.png, when CONSOLE_SCREENSHOTS=1. */
  shoot(page: Page, name: string): Promise<void>;
}

/**
 * Starts Cairn and, unless there is no browser, chromium; both are closed after the file's tests.
 * `env` is Cairn's environment (e.g. CAIRN_WEBHOOKS_ALLOW_PRIVATE for a receiver on this machine).
 */
export async function consoleBrowser({ env = {} }: { env?: Record<string, string> } = {}): Promise<ConsoleBrowser> {
  // `npm ci` builds the console (the root's `prepare`); a checkout that skipped it is built here once.
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    execFileSync('npm', ['run', 'build', '-w', 'console'], { cwd: ROOT, stdio: 'inherit' });
  }
  const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const app = await startApp({ consoleDir: process.env.CAIRN_CONSOLE_DIR }, { env });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
  const t = await createTestTenant(app);

  let browser: Browser | undefined;
  before(async () => {
    if (skipBrowser) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // The machine has no network: without these, chromium keeps trying to reach Google's hosts.
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  return {
    app,
    t,
    origin,
    async open(width, { path = '', timezoneId } = {}) {
      if (!browser) throw new Error('no browser');
      const context = await browser.newContext({ viewport: { width, height: 900 }, ...(timezoneId ? { timezoneId } : {}) });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${origin}/console/${path}`);
      return { page, problems };
    },
    async signInAsClient(page, key, secret) {
      await page.getByLabel('An API client').check();
      await page.getByLabel('Tenant').fill(t.tenant.name);
      await page.getByLabel('API client key').fill(key);
      await page.getByLabel('Secret').fill(secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Console' }).waitFor();
    },
    async checkAccessibility(page, label) {
      // Evaluated by the driver, which the page's CSP (script-src 'self') does not govern.
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe;
        const result = await axe.run();
        return result.violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map(
            (violation) =>
              `${violation.id} (${violation.impact}): ${violation.nodes.map((node: any) => node.target).join(' | ')}`,
          );
      });
      assert.deepEqual(violations, [], label);
    },
    async shoot(page, name) {
      if (!SCREENSHOTS) return;
      fs.mkdirSync(path.join(ROOT, 'docs/console'), { recursive: true });
      await page.screenshot({ path: path.join(ROOT, 'docs/console', `${name}.png`), fullPage: true });
    },
  };
}
