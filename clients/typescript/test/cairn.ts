import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../../src/config.ts';
import type { Formation } from '../../../src/formation/schemas.ts';
import { type StartOptions, startApp, type TestApp, createTestTenant as testTenant } from '../../../src/test/harness.ts';
import { type CairnClientOptions, createCairnClient } from '../src/index.ts';

/**
 * The client's tests talk to a LISTENING Cairn over a real port: the server's test harness builds
 * the app on the test database, and each test makes its own tenant with the demo formation (every
 * section, so each area can be tried), as an operator would with `cairn client create`.
 */

const demo = JSON.parse(fs.readFileSync(new URL('../../../formations/demo.json', import.meta.url), 'utf8')) as Formation;

export interface Listening {
  app: TestApp;
  baseUrl: string;
}

/** A Cairn listening on 127.0.0.1 on a free port, closed when the file's tests end. */
export async function listening(overrides: Partial<Config> = {}, options: StartOptions = {}): Promise<Listening> {
  const app = await startApp(overrides, options);
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  return { app, baseUrl: `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}` };
}

/** A new tenant (instance `sandbox`, the demo formation) and an API client holding its `administrator` role. */
export async function demoTenant({ app }: Listening) {
  const t = await testTenant(app, demo, { adminRole: 'administrator' });
  return {
    t,
    /** The path parameters every instance route takes. */
    at: { tenantName: t.tenant.name, instanceName: t.instance.name },
    credentials: { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret },
  };
}

/** A client of `server` signed in as the tenant's administrator client; retries wait a few milliseconds. */
export function clientOf(
  server: Listening,
  credentials: CairnClientOptions['credentials'],
  options: Partial<CairnClientOptions> = {},
) {
  return createCairnClient({
    baseUrl: server.baseUrl,
    ...(credentials ? { credentials } : {}),
    ...options,
    retry: { baseDelayMs: 5, maxDelayMs: 50, ...options.retry },
  });
}

/** A small real file of `kind`, as the server's own tests make them (content checked by magic bytes). */
export { sampleFile } from '../../../src/test/files.ts';
