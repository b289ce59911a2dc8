import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { areas } from '../../../areas.ts';
import { mergeAreas } from '../../../platform/area.ts';
import { TestClock } from '../../../test/clock.ts';
import { createPatient, createTestTenant, startApp } from '../../../test/harness.ts';
import { fullFormation, seedFixtures } from '../../../test/route-fixtures.ts';

/**
 * A purge leaves nothing of the patient but what its answer lists as kept: a tenant holding one of
 * every record about the patient (the route checks' fixtures, plus their phone and email, a kept
 * idempotent answer, webhook deliveries and a FHIR bulk export naming them) is purged, its jobs
 * drained, then every table and every blob is searched for the patient's id, names, phone and email.
 */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const formation = fullFormation();
const t = await createTestTenant(app, formation);
const fixtures = await seedFixtures(t, 'p', formation);
const patientId = fixtures.ids.patient!;
const phone = '+14155550187';
const email = `patient-${fixtures.marker}@example.org`;
const firstName = `Pat ${fixtures.marker}`;
const lastName = `Ient ${fixtures.marker}`;

/** Which table each kept resource is in. */
const keptTables: Record<string, string> = {
  INVOICE: 'invoices',
  AUDIT_EVENT: 'audit_events',
  ACCESS_LOG: 'access_log',
  PATIENT_PURGE: 'patient_purges',
};

/** Each table of the public schema, with an expression of its whole row as text (bytea read as text). */
async function tablesAsText() {
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string }>`
    SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`.execute(app.services.db);
  const tables = new Map<string, { text: ReturnType<typeof sql>[]; tenant: boolean }>();
  for (const row of rows) {
    const table = tables.get(row.table_name) ?? { text: [], tenant: false };
    const column = sql.ref(row.column_name);
    table.text.push(row.data_type === 'bytea' ? sql`encode(${column}, 'escape')` : sql`${column}::text`);
    if (row.column_name === 'tenant_id') table.tenant = true;
    tables.set(row.table_name, table);
  }
  return tables;
}

/** The tables whose rows hold any of `terms` (this tenant's rows, where a table has tenants), with how many. */
async function tablesHolding(terms: string[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const [table, { text, tenant }] of await tablesAsText()) {
    const row = sql`concat_ws(' ', ${sql.join(text)})`;
    const { rows } = await sql<{ count: string }>`
      SELECT count(*) AS count FROM ${sql.table(table)}
      WHERE ${tenant ? sql`tenant_id = ${t.tenant.id} AND` : sql``}
        (${sql.join(
          terms.map((term) => sql`strpos(${row}, ${term}) > 0`),
          sql` OR `,
        )})`.execute(app.services.db);
    const count = Number(rows[0]?.count ?? 0);
    if (count > 0) found[table] = count;
  }
  return found;
}

/** The blobs (paths and contents) of the app's local store that hold any of `terms`. */
function blobsHolding(terms: string[]): string[] {
  const root = path.join(app.config.dataDir, 'files');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(root, file))
    .filter((file) => fs.statSync(file).isFile())
    .filter((file) => {
      const content = fs.readFileSync(file).toString('latin1');
      return terms.some((term) => file.includes(term) || content.includes(term));
    });
}

describe('a purge, in every area', () => {
  test("every table holding patients' rows is declared by some area's patientData", async () => {
    const declared = new Set(mergeAreas(areas).declarations.patientData.flatMap((data) => data.tables));
    const { rows } = await sql<{ table_name: string }>`
      SELECT DISTINCT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name IN ('patient_id', 'patient_ids')
      ORDER BY table_name`.execute(app.services.db);
    const forgotten = rows.map((row) => row.table_name).filter((table) => !declared.has(table));
    assert.deepEqual(forgotten, [], 'tables with a patient_id that no Area declares in its patientData.tables');
  });

  test("leaves none of the patient's id, names, phone or email outside what its answer lists as kept", async () => {
    // Their phone and email, through a keyed write: its kept answer holds them.
    const keyed = await t.api.request(
      'PATCH',
      `${t.base}/patients/${patientId}`,
      { phone, email },
      { 'idempotency-key': 'purge-1' },
    );
    assert.equal(keyed.status, 200, keyed.text);
    // A FHIR bulk export naming them, written past the settle time.
    clock.advance(10 * 60_000);
    const kickOff = await t.api.request('GET', `${t.base}/fhir/R4/Patient/$export`, undefined, { prefer: 'respond-async' });
    assert.equal(kickOff.status, 202, kickOff.text);
    clock.advance(10 * 60_000);
    // Events relayed into webhook deliveries, blobs written.
    await app.jobs.drain();
    const bystander = await createPatient(t, { firstName: 'Stays', lastName: 'Here' });

    const terms = [patientId, firstName, lastName, phone, email];
    const before = await tablesHolding(terms);
    for (const table of [
      'patients',
      'contacts',
      'files',
      'fhir_export_files',
      'idempotency_keys',
      'invoices',
      'sandbox_messages',
    ])
      assert.ok(before[table], `the fixtures hold nothing of the patient in ${table}: ${JSON.stringify(before)}`);
    assert.ok(blobsHolding([patientId]).length > 0, 'no blob names the patient before the purge');

    const kicked = await t.api.post(`${t.base}/patients/${patientId}/purge`, { confirm: patientId });
    assert.equal(kicked.status, 202, kicked.text);
    await app.jobs.drain();
    const done = await t.api.get(`${t.base}/patient-purges/${kicked.body.id}`);
    assert.equal(done.body.status, 'DONE', done.text);
    const kept = done.body.kept as { resource: string; ids?: string[] }[];
    assert.deepEqual(kept.find((k) => k.resource === 'INVOICE')?.ids, [fixtures.ids.invoice]);

    const allowed = new Set(kept.map((k) => keptTables[k.resource]));
    const after = await tablesHolding(terms);
    const outside = Object.fromEntries(Object.entries(after).filter(([table]) => !allowed.has(table)));
    assert.deepEqual(outside, {}, 'tables still holding the patient outside what the purge kept');
    // What is kept of the logs holds their id only.
    const named = await tablesHolding([firstName, lastName, phone, email]);
    assert.deepEqual(Object.keys(named), ['invoices'], 'only the kept invoice names the patient');
    assert.deepEqual(blobsHolding(terms), [], 'blobs still holding the patient');
    assert.equal((await t.api.get(`${t.base}/patients/${bystander.id}`)).status, 200);
  });
});
