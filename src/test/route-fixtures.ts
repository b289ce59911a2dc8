import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { areas } from '../areas.ts';
import type { Formation } from '../formation/schemas.ts';
import { type Response, type TestApp, type TestTenant, testFormation } from './harness.ts';

/**
 * Fixtures for the generated route checks (src/http/route-checks.test.ts) and the fixed-clock
 * test: one of each kind of record, made over the API in a tenant, and a snapshot of everything a
 * tenant holds. Each area declares its own fixtures beside its code (`Area.fixtures`, its
 * `fixtures.ts`): the records it seeds and the path parameters they fill. This file keeps only
 * the platform's part: running them in the areas' order, and the tenant and instance.
 */

/** The demo formation (every section), with the harness roles `admin` and `nothing` merged in. */
export function fullFormation(): Formation {
  const demo = JSON.parse(fs.readFileSync(new URL('../../formations/demo.json', import.meta.url), 'utf8')) as Formation;
  return testFormation(demo);
}

export interface Fixtures {
  /** Each kind of record's id (`patient`, `task`, `documentFile`, ...), as the areas named them. */
  ids: Record<string, string>;
  /** Keys that also find a record: a user's username and email, a patient's externalId, MRN, externalGuid. */
  alternateKeys: string[];
  /** Formation names and other keys the fixtures use (`program`, `username`, ...). */
  names: Record<string, string>;
  /** A text every fixture of the tenant carries, to spot its data in another tenant's answers. */
  marker: string;
  /** The bodies that made the fixtures, by operation (`POST /{tenantName}/...`): bodies known to be good. */
  bodies: Record<string, unknown>;
}

/** What an area's seed works with: the tenant, its formation, what earlier areas seeded, and a recorder of calls. */
export interface FixtureRun extends Fixtures {
  t: TestTenant;
  formation: Formation;
  /** Path templates as the API documents them. */
  paths: { instance: string; admin: string; patient: string };
  /** Sends a write that must succeed, recording its body as a good one for its operation. */
  call(method: 'POST' | 'PUT' | 'PATCH', template: string, url: string, body: unknown): Promise<any>;
}

/** An area's route-check fixtures (its `fixtures.ts`). */
export interface AreaFixtures {
  /** Makes one of each of the area's records over the API, filling `ids` and `names` (areas run in src/areas.ts's order). */
  seed?(run: FixtureRun): Promise<void>;
  /** Values of the path parameters its routes name: undefined when the parameter is not this area's on `path`. */
  params?: Record<string, (fixtures: Fixtures, path: string) => string | undefined>;
}

export function created(response: Response, label: string): any {
  assert.ok(response.status === 200 || response.status === 201, `${label}: ${response.status} ${response.text}`);
  return response.body;
}

/** The areas' fixtures, in the areas' order; loaded on first use (they import this file). */
let loaded: AreaFixtures[] = [];
async function areaFixtures(): Promise<AreaFixtures[]> {
  if (loaded.length === 0) {
    loaded = await Promise.all(
      areas.map(async (area) =>
        area.fixtures ? ((await import(area.fixtures.href)) as { fixtures: AreaFixtures }).fixtures : {},
      ),
    );
  }
  return loaded;
}

/** The platform's own parameters: the tenant and instance of the seeded tenant. */
const platformParams: Record<string, (fixtures: Fixtures) => string | undefined> = {
  tenantName: (fixtures) => fixtures.names.tenantName,
  instanceName: (fixtures) => fixtures.names.instanceName,
};

/** Seeds a tenant made with `fullFormation()`: every area's records, in the areas' order. */
export async function seedFixtures(t: TestTenant, tag: string, formation: Formation): Promise<Fixtures> {
  const I = '/{tenantName}/{instanceName}';
  const run: FixtureRun = {
    t,
    formation,
    marker: `zz${tag}mark`,
    ids: { tenant: t.tenant.id, instance: t.instance.id, apiClient: t.adminClient.id },
    names: { tenantName: t.tenant.name, instanceName: t.instance.name },
    alternateKeys: [],
    bodies: {},
    paths: { instance: I, admin: '/{tenantName}/admin', patient: `${I}/patients/{patientId}` },
    async call(method, template, url, body) {
      run.bodies[`${method} ${template}`] = body;
      return created(await t.api.request(method, url, body), `${method} ${url}`);
    },
  };
  for (const fixtures of await areaFixtures()) await fixtures.seed?.(run);
  const { ids, alternateKeys, names, marker, bodies } = run;
  return { ids, alternateKeys, names, marker, bodies };
}

/** A path parameter's value among the fixtures (seeded first), or undefined when no area knows it. */
export function fixtureParam(fixtures: Fixtures, name: string, path: string): string | undefined {
  const own = platformParams[name]?.(fixtures);
  if (own !== undefined) return own;
  for (const area of loaded) {
    const value = area.params?.[name]?.(fixtures, path);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Every row a tenant holds: the tenant's own row and, for every table with a `tenant_id`, its
 * rows as JSON text in a fixed order. Two snapshots are equal when nothing of the tenant changed.
 */
export async function tenantSnapshot(app: TestApp, tenantId: string): Promise<Record<string, string[]>> {
  const db = app.services.db;
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'tenant_id'
    ORDER BY table_name`.execute(db);
  const snapshot: Record<string, string[]> = {};
  const own = await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM tenants t WHERE id = ${tenantId}`.execute(db);
  snapshot.tenants = own.rows.map((r) => r.row);
  for (const { table_name } of tables.rows) {
    const rows = await sql<{ row: string }>`
      SELECT row_to_json(t)::text AS row FROM ${sql.table(table_name)} t
      WHERE tenant_id = ${tenantId} ORDER BY 1`.execute(db);
    snapshot[table_name] = rows.rows.map((r) => r.row);
  }
  return snapshot;
}

/**
 * A digest of every row a tenant holds (its own row and every table with a `tenant_id`), in one
 * statement: two digests are equal when nothing of the tenant changed. Cheaper than a snapshot when
 * a test asks after each of many requests that nothing was written; the snapshot says what changed.
 */
export async function tenantDigest(app: TestApp, tenantId: string): Promise<string> {
  const db = app.services.db;
  // The access log records refusals on a patient's record (attempts): what a request wrote is the rest.
  tenantTables ??= (
    await sql<{ table_name: string }>`
      SELECT DISTINCT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'tenant_id'
        AND table_name NOT IN ('access_log', 'access_log_seals')
      ORDER BY table_name`.execute(db)
  ).rows.map((row) => row.table_name);
  const digests = tenantTables.map(
    (table) =>
      sql`(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ${sql.table(table)} t WHERE tenant_id = ${tenantId})`,
  );
  const own = sql`(SELECT md5(coalesce(string_agg(t::text, '|'), '')) FROM tenants t WHERE id = ${tenantId})`;
  const { rows } = await sql<{ digest: string }>`SELECT md5(concat_ws(',', ${sql.join([own, ...digests])})) AS digest`.execute(
    db,
  );
  return rows[0]?.digest ?? '';
}
let tenantTables: string[] | undefined;
