import fs from 'node:fs';
import { areas } from '../areas.ts';
import type { Config } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { systemContext } from '../http/context.ts';
import { Services } from '../http/services.ts';
import { applyFormation } from '../modules/formation/index.ts';
import { mergeAreas } from '../platform/area.ts';
import { createApiClient, createInstance, createTenant } from '../tenancy/store.ts';
import { findInstanceByName, findTenantByName } from '../tenancy/tenancy.ts';

export const DEMO_TENANT = 'demo';
export const DEMO_INSTANCE = 'sandbox';
export const DEMO_CLIENT_NAME = 'demo-admin';
export const demoFormationPath = new URL('../../formations/demo.json', import.meta.url);

/** Opens the configured database and brings its schema up to date. */
export async function openMigrated(config: Config): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    waitSeconds: config.databaseWaitSeconds,
  });
  try {
    await migrateToLatest(database.db);
    return database;
  } catch (error) {
    await database.close();
    // A serving role made with `cairn database grant` may not change the schema: its owner migrates.
    if ((error as { code?: unknown }).code === '42501') {
      throw new Error(
        "the schema needs migrating and this role may not: run `cairn migrate` as the tables' owner, then start again",
      );
    }
    throw error;
  }
}

/** Services for CLI commands, which act as SYSTEM and never sign tokens, with every area's declarations. */
export function cliServices(config: Config, database: Database): Services {
  return new Services({
    config: { ...config, cacheTtlMs: 0 },
    database,
    secret: 'cli-never-signs-tokens-with-this-key',
    declared: mergeAreas(areas).declarations,
  });
}

export interface DemoResult {
  created: boolean;
  clientKey?: string;
  secret?: string;
}

/**
 * First start: tenant `demo`, instance `sandbox` with the shipped formation, and an API client
 * holding the administrator role (every permission). CAIRN_DEMO_CLIENT/SECRET fix its key and
 * secret so scripts can log in without reading the log.
 */
export async function ensureDemoTenant(config: Config, database: Database): Promise<DemoResult> {
  const services = cliServices(config, database);
  const existing = await findTenantByName(database.db, DEMO_TENANT);
  if (existing) return { created: false };
  const tenant = await createTenant(services, DEMO_TENANT, 'Demo organization');
  const instance = await createInstance(services, tenant, DEMO_INSTANCE, 'Sandbox for trying the API');
  const formation = JSON.parse(fs.readFileSync(demoFormationPath, 'utf8'));
  await applyFormation(systemContext(services, tenant, instance), formation);
  const client = await createApiClient(services, tenant, {
    name: DEMO_CLIENT_NAME,
    roles: [{ instanceId: instance.id, role: 'administrator' }],
    ...(config.demo.clientKey ? { clientKey: config.demo.clientKey, secret: config.demo.secret } : {}),
  });
  return { created: true, clientKey: client.clientKey, secret: client.secret };
}

/** The start banner. The secret appears only on the start that created the client, as it says. */
export function tokenHowTo(config: Config, demo: DemoResult): string {
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  const key = demo.clientKey ?? (config.demo.clientKey || '<client key>');
  const secret = demo.created && demo.secret ? demo.secret : '<client secret>';
  const lines = ['', `Cairn is listening on ${base}  (API docs: ${base}/docs)`, `Demo tenant: ${DEMO_TENANT}/${DEMO_INSTANCE}`];
  if (demo.created) {
    lines.push('Demo API client created. Its secret is shown only now:', `  key:    ${key}`, `  secret: ${secret}`);
  } else {
    lines.push('Use the demo key and secret printed on first start (or run: npm run cairn -- client create ...).');
  }
  lines.push(
    'Get a token:',
    `  curl -s -X POST ${base}/auth/token -H 'Content-Type: application/json' \\`,
    `    -d '{"apiClient":"${key}","secret":"${secret}"}'`,
    'Then call the API:',
    `  curl -s ${base}/${DEMO_TENANT}/${DEMO_INSTANCE}/patients -H "Authorization: Bearer $TOKEN"`,
    '',
  );
  return lines.join('\n');
}

export async function demoInstanceOf(services: Services) {
  const tenant = await findTenantByName(services.db, DEMO_TENANT);
  const instance = tenant && (await findInstanceByName(services.db, tenant.id, DEMO_INSTANCE));
  if (!tenant || !instance) throw new Error('The demo tenant does not exist');
  return { tenant, instance };
}
