import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../app.ts';
import { areas } from '../areas.ts';
import { type Config, loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { BlobStore } from '../files/blob-store.ts';
import { allPermissions, type Permission } from '../formation/permissions.ts';
import type { Formation } from '../formation/schemas.ts';
import { systemContext } from '../http/context.ts';
import type { AccessTable } from '../http/route-access.ts';
import type { SchemaCompilation } from '../http/schema-compilation.ts';
import type { Clock, Services } from '../http/services.ts';
import { applyFormation } from '../modules/formation/operations.ts';
import { type Area, type Catalogs, mergeAreas } from '../platform/area.ts';
import type { Channel } from '../providers/slot.ts';
import { createApiClient, createInstance, createTenant } from '../tenancy/store.ts';
import type { Instance, Tenant } from '../tenancy/tenancy.ts';
import { recordStatement } from './statements.ts';

// Formations in tests name the areas' permissions before any app is built.
mergeAreas(areas);

/**
 * Test harness: one real database per test process (PGlite copied from the runner's template,
 * or the PostgreSQL of DATABASE_URL), and a fresh tenant per test so tests never share data.
 */

let shared: Promise<Database> | undefined;

function database(): Promise<Database> {
  shared ??= (async () => {
    const url = process.env.DATABASE_URL ?? '';
    const template = process.env.CAIRN_TEST_TEMPLATE;
    const db = await openDatabase({
      databaseUrl: url,
      dataDir: 'memory://',
      poolSize: 4,
      onStatement: recordStatement,
      // A Blob backed by the file, which PGlite reads once: no copies of its 40 MB on the way.
      ...(template && !url ? { loadDataDir: await fs.openAsBlob(template) } : {}),
    });
    if (!template || url) await migrateToLatest(db.db);
    return db;
  })();
  return shared;
}

export interface TestApp {
  server: FastifyInstance;
  services: Services;
  config: Config;
  /** Each route's access rule, as its area declared it. */
  accessTable: AccessTable;
  catalogs: Catalogs;
  /** The routes' schemas, compiled on first use. */
  schemas: SchemaCompilation;
  /**
   * The app's job workers, which tests never start: `await app.jobs.drain()` runs the background
   * work this process's tenants have (webhook deliveries, blob removals) to its end, deterministically.
   */
  jobs: { drain(): Promise<number> };
}

/**
 * Builds an app on the shared database; closed when the file's tests end. Its files go to a
 * folder of its own, removed with it.
 */
export async function startApp(overrides: Partial<Config> = {}, options: StartOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-data-'));
  const { env = {}, ...app } = options;
  const config = {
    ...loadConfig({
      CAIRN_DEMO: 'false',
      LOG_LEVEL: process.env.CAIRN_TEST_LOG_LEVEL ?? 'silent',
      CAIRN_DATA_DIR: dataDir,
      ...env,
    }),
    ...overrides,
  };
  const { server, services, accessTable, catalogs, schemas } = await buildApp({ config, database: await database(), ...app });
  await server.ready();
  after(async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    server,
    services,
    config,
    accessTable,
    catalogs,
    schemas,
    jobs: { drain: () => services.jobs.drain({ tenants: [...ownTenants] }) },
  };
}

/**
 * The tenants this test process made. Test processes share one PostgreSQL database, each app with
 * its own files and settings; a drain runs only their jobs, never another process's.
 */
const ownTenants = new Set<string>();

export interface StartOptions {
  blobs?: BlobStore;
  clock?: Clock;
  /** Environment variables of the areas' and mechanisms' settings (`CAIRN_TOKEN_LIMIT: '3'`). */
  env?: Record<string, string>;
  /** The areas to serve, when a test adds its own. */
  areas?: readonly Area[];
  /** Channels' drivers in place of the configured ones. */
  providers?: ReadonlyMap<Channel, unknown>;
}

/** Closes the shared database once every test in the file is done. */
after(async () => {
  if (shared) await (await shared).close();
});

/** The formation each test tenant starts with: every permission via `admin`, none via `nothing`. */
export function testFormation(extra: Partial<Formation> = {}): Formation {
  const { securityPolicies = [], roles = [], ...sections } = extra;
  return {
    territories: [
      { name: 'west', title: 'West', territories: ['california', 'oregon'] },
      { name: 'east', title: 'East', territories: ['new-york', 'florida'] },
    ],
    securityPolicies: [
      { name: 'everything', permissions: allPermissions() },
      { name: 'patient-reading', permissions: ['PATIENT_READ'] },
      ...securityPolicies,
    ],
    roles: [
      { name: 'admin', title: 'Administrator', description: 'All permissions', policies: ['everything'] },
      { name: 'patient-reader', title: 'Patient reader', policies: ['patient-reading'] },
      { name: 'nothing', title: 'No permissions', policies: [] },
      ...roles,
    ],
    patientAttributes: [],
    instancePhones: [],
    ...sections,
  };
}

export interface Response<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
  text: string;
}

export interface Client {
  token: string;
  clientKey: string;
  secret: string;
  id: string;
  /** The name audit entries and `createdByName` show, without the `API_CLIENT:` prefix. */
  name: string;
}

/** A request helper bound to a token: `await api.get('/demo/sandbox/patients')`. */
export class Api {
  constructor(
    private readonly server: FastifyInstance,
    readonly token: string | undefined,
  ) {}

  async request<T = any>(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response<T>> {
    const response = await this.server.inject({
      method,
      url,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...headers },
      ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
    });
    const text = response.body;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.statusCode, body: parsed as T, headers: response.headers, text };
  }

  get<T = any>(url: string) {
    return this.request<T>('GET', url);
  }
  post<T = any>(url: string, body?: unknown) {
    return this.request<T>('POST', url, body ?? {});
  }
  put<T = any>(url: string, body?: unknown) {
    return this.request<T>('PUT', url, body ?? {});
  }
  patch<T = any>(url: string, body?: unknown) {
    return this.request<T>('PATCH', url, body ?? {});
  }
  delete<T = any>(url: string) {
    return this.request<T>('DELETE', url);
  }
}

export interface TestTenant {
  /** The app it lives in (its job queue: `await t.app.jobs.drain()`). */
  app: TestApp;
  tenant: Tenant;
  instance: Instance;
  /** `/<tenant>/<instance>` */
  base: string;
  /** `/<tenant>/admin` */
  admin: string;
  /** Holds the admin role: every permission. */
  api: Api;
  adminClient: Client;
  /** A client with a role in the instance whose policies grant the given permissions only. */
  apiWith(permissions: Permission[]): Promise<Api>;
  /** A client holding the named role. */
  clientWithRole(role: string, instance?: Instance): Promise<Client>;
  anonymous: Api;
}

/**
 * A new tenant with instance `sandbox`, the test formation, and an admin API client holding
 * `adminRole` (the test formation's `admin`; another formation names its own).
 */
export async function createTestTenant(
  app: TestApp,
  formation: Formation = testFormation(),
  { adminRole = 'admin' }: { adminRole?: string } = {},
): Promise<TestTenant> {
  const { services } = app;
  const name = `t${randomBytes(6).toString('hex')}`;
  const tenant = await createTenant(services, name);
  ownTenants.add(tenant.id);
  const instance = await createInstance(services, tenant, 'sandbox');
  await applyFormation(systemContext(services, tenant, instance), formation);
  return instanceOfTenant(app, tenant, { ...instance, currentFormationVersion: 1 }, adminRole);
}

/**
 * Another instance of a test tenant, named `name`, with `formation` published: a TestTenant whose
 * base, api, admin client and roles are that instance's (the tenant, its users and `admin` are shared).
 */
export async function createTestInstance(
  t: TestTenant,
  name: string,
  formation: Formation = testFormation(),
  { adminRole = 'admin' }: { adminRole?: string } = {},
): Promise<TestTenant> {
  const instance = await createInstance(t.app.services, t.tenant, name);
  await applyFormation(systemContext(t.app.services, t.tenant, instance), formation);
  return instanceOfTenant(t.app, t.tenant, { ...instance, currentFormationVersion: 1 }, adminRole);
}

/** A tenant seen from one of its instances (published): an admin client holding `adminRole` there. */
async function instanceOfTenant(app: TestApp, tenant: Tenant, published: Instance, adminRole: string): Promise<TestTenant> {
  const { services, server } = app;
  const base = `/${tenant.name}/${published.name}`;

  async function clientWithRole(role: string, target: Instance = published): Promise<Client> {
    const client = await createApiClient(services, tenant, {
      name: `client-${randomBytes(4).toString('hex')}`,
      roles: [{ instanceId: target.id, role }],
    });
    const token = await services.tokens.issue({
      type: 'API_CLIENT',
      id: client.id,
      tenantId: tenant.id,
      name: `API_CLIENT:${client.name}`,
    });
    return { token: token.token, clientKey: client.clientKey, secret: client.secret, id: client.id, name: client.name };
  }

  const adminClient = await clientWithRole(adminRole);
  let roleCount = 0;
  return {
    app,
    tenant,
    instance: published,
    base,
    admin: `/${tenant.name}/admin`,
    api: new Api(server, adminClient.token),
    adminClient,
    anonymous: new Api(server, undefined),
    clientWithRole,
    async apiWith(permissions: Permission[]) {
      // A role of its own, added to the formation through the API like an administrator would.
      roleCount += 1;
      const role = `custom-${roleCount}`;
      const api = new Api(server, adminClient.token);
      const current = (await api.get(`${base}/formations/current`)).body.formation as Formation;
      const next: Formation = {
        ...current,
        securityPolicies: [...(current.securityPolicies ?? []), { name: `${role}-policy`, permissions }],
        roles: [...(current.roles ?? []), { name: role, policies: [`${role}-policy`] }],
      };
      const draft = await api.put(`${base}/formations/draft`, next);
      if (draft.status !== 200) throw new Error(`saving the draft failed: ${draft.text}`);
      const publishedVersion = await api.post(`${base}/formations/draft/publish`);
      if (publishedVersion.status !== 200) throw new Error(`publish failed: ${publishedVersion.text}`);
      const client = await clientWithRole(role);
      return new Api(server, client.token);
    },
  };
}

/** A token for an instance that has not published a formation. */
export async function newInstance(app: TestApp, tenant: Tenant, name: string): Promise<Instance> {
  return createInstance(app.services, tenant, name);
}

/** DECISIONS §1: UTC timestamps carry three-digit milliseconds and Z. */
export const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The keys of 000's page object (Spring's Page), sorted. */
export const pageObjectKeys = [
  'content',
  'empty',
  'first',
  'last',
  'number',
  'numberOfElements',
  'pageable',
  'size',
  'sort',
  'totalElements',
  'totalPages',
];
/** The keys of the `metaInfo` of the admin lists (users, audit data), sorted. */
export const metaInfoKeys = ['firstPage', 'lastPage', 'numberOfElements', 'page', 'pageSize', 'totalElements', 'totalPages'];

export function errorCode(response: Response): string | undefined {
  return (response.body as { errorCode?: string }[] | undefined)?.[0]?.errorCode;
}

export function assertCode(response: Response, status: number, code: string, label = '') {
  assert.equal(response.status, status, `${label}: ${response.status} ${response.text}`);
  assert.equal(errorCode(response), code, label);
}

export type ErrorDetails = Record<string, unknown> & { errors?: { path: string }[] };

export function errorDetails(response: Response): ErrorDetails {
  return (response.body as { details: ErrorDetails }[])[0]!.details;
}

/** The fields a VALIDATION_ERROR names, as `body.x`, `querystring.y` or `params.z`. */
export function errorPaths(response: Response): string[] {
  return errorDetails(response).errors?.map((error) => error.path) ?? [];
}

/** 400 VALIDATION_ERROR; with `path`, one of the errors is at that field or inside it. */
export function assertValidation(response: Response, path?: string, label = '') {
  assertCode(response, 400, 'VALIDATION_ERROR', label);
  if (path === undefined) return;
  const paths = errorPaths(response);
  assert.ok(
    paths.some((p) => p === path || p.startsWith(`${path}.`)),
    `${label}: expected an error at ${path}, got ${JSON.stringify(paths)}`,
  );
}

export interface AuditEntry {
  action: string;
  entityType: string;
  entityId: string;
  patientId: string | null;
  changedFields: string[] | null;
}

/** The tenant's audit entries matching `filters` (DECISIONS §7), newest first. */
export async function auditOf(t: TestTenant, filters: Record<string, string>): Promise<AuditEntry[]> {
  const query = new URLSearchParams({ ...filters, size: '100' });
  const response = await t.api.get(`${t.admin}/audit-data?${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data as AuditEntry[];
}

/** The password `createUserWithPassword` gives unless told otherwise. */
export const TEST_PASSWORD = 'correct horse battery';

/**
 * A user over the admin API (Joy Nurse, a username of its own unless given) with password access, a
 * role in the sandbox, and a password: for the sign-in flows (MFA, apps, the console).
 */
export async function createUserWithPassword(
  t: TestTenant,
  { role = 'patient-reader', password = TEST_PASSWORD, username = `nurse-${randomUUID().slice(0, 8)}` } = {},
): Promise<{ id: string; username: string }> {
  const user = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Joy',
    lastName: 'Nurse',
    passwordAccess: true,
    roles: [{ permissionName: role, instanceName: 'sandbox' }],
  });
  assert.equal(user.status, 201, user.text);
  assert.equal((await t.api.put(`${t.admin}/users/${username}/password`, { password })).status, 200);
  return { username, id: (user.body as { id: string }).id };
}

/** A patient created over the API (201): Ada Lovelace unless the body says otherwise. */
export async function createPatient(t: TestTenant, body: Record<string, unknown> = {}, api: Api = t.api) {
  const response = await api.post(`${t.base}/patients`, { firstName: 'Ada', lastName: 'Lovelace', ...body });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string } & Record<string, any>;
}
