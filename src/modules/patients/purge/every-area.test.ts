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
 * idempotent answer, webhook deliveries, a FHIR bulk export, and free text naming them: a calendar
 * event "Visit of <last name>" shared with a care-team member, a task, an encounter's comment, an
 * email draft) is purged, its jobs drained, then every table's text and every blob is searched for
 * the patient's id, names, phone and email. Before that, the declarations are checked against the
 * schema: every table naming the patient is some area's, and every record that outlives a purge
 * while naming them has each text column cleared or said to hold nothing of theirs.
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
const terms = [patientId, firstName, lastName, phone, email];
const declarations = mergeAreas(areas).declarations.patientData;

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

/** A table's columns that hold text: text, JSON, and arrays of text. */
async function textColumns(table: string): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name = ${table}
      AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
           OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar')))
    ORDER BY column_name`.execute(app.services.db);
  return rows.map((row) => row.column_name);
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

/** Sends a write that must succeed; answers its body. */
async function made(method: 'POST' | 'PATCH', url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await t.api.request(method, url, body, headers);
  assert.ok(response.status === 200 || response.status === 201, `${method} ${url}: ${response.status} ${response.text}`);
  return response.body;
}

const user = fixtures.ids.user!;
const bystander = await createPatient(t, { firstName: 'Stays', lastName: 'Here' });
const visit = { startDateTime: '2030-03-04T10:00:00.000Z', endDateTime: '2030-03-04T11:00:00.000Z', hostId: user };
// Free text naming the patient: an event shared with a care-team member, and records of their own.
const shared = await made('POST', `${t.base}/calendar/events`, {
  ...visit,
  eventTitle: `Visit of ${lastName}`,
  eventDescription: `Bring ${firstName}'s results; call ${phone}`,
  eventType: 'APPOINTMENT',
  additionalInfo: { room: 4, about: email },
  participants: [
    { participantId: patientId, participantRole: 'patient' },
    { participantId: user, participantRole: 'psm' },
  ],
});
const theirs = await made('POST', `${t.base}/calendar/events`, {
  ...visit,
  eventTitle: 'Visit of Stays Here',
  participants: [{ participantId: bystander.id, participantRole: 'patient' }],
});
await made('POST', `${t.base}/tasks`, {
  name: `Call ${lastName}`,
  description: `${firstName} asked to be called on ${phone}`,
  status: 'TODO',
  priority: 'LOW',
  assignee: { id: user },
  patient: { id: patientId },
});
await made('POST', `${t.base}/patients/${patientId}/encounters/${fixtures.ids.encounter}/comments`, {
  text: `${lastName} was late`,
});
await made('POST', `${t.base}/patients/${patientId}/email-drafts`, {
  subject: `Your results, ${firstName} ${lastName}`,
  body: 'Attached',
  patientEmail: email,
});
// Their phone and email, through a keyed write: its kept answer holds them.
await made('PATCH', `${t.base}/patients/${patientId}`, { phone, email }, { 'idempotency-key': 'purge-1' });
// A FHIR bulk export naming them, written past the settle time.
clock.advance(10 * 60_000);
const kickOff = await t.api.request('GET', `${t.base}/fhir/R4/Patient/$export`, undefined, { prefer: 'respond-async' });
assert.equal(kickOff.status, 202, kickOff.text);
clock.advance(10 * 60_000);
// Events relayed into webhook deliveries, blobs written.
await app.jobs.drain();
const before = await tablesHolding(terms);

describe('a purge, in every area', () => {
  test("every table holding patients' rows is declared by some area's patientData", async () => {
    const declared = new Set(declarations.flatMap((data) => data.tables));
    const { rows } = await sql<{ table_name: string }>`
      SELECT DISTINCT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name IN ('patient_id', 'patient_ids')
      ORDER BY table_name`.execute(app.services.db);
    const forgotten = rows.map((row) => row.table_name).filter((table) => !declared.has(table));
    assert.deepEqual(forgotten, [], 'tables with a patient_id that no Area declares in its patientData.tables');
  });

  test("every table naming the patient otherwise is declared: in an area's tables, mentions or texts", () => {
    const declared = new Set(
      declarations.flatMap((data) => [
        ...data.tables,
        ...Object.keys(data.mentions ?? {}),
        ...(data.texts ?? []).map((texts) => texts.table),
      ]),
    );
    const forgotten = Object.keys(before).filter((table) => !declared.has(table));
    assert.deepEqual(forgotten, [], `tables naming the patient (${terms.join(', ')}) that no Area's patientData declares`);
  });

  test('a record that outlives a purge while naming the patient has each text column cleared, or said to hold nothing of theirs', async () => {
    const texts = declarations.flatMap((data) => data.texts ?? []);
    assert.ok(texts.some((entry) => entry.table === 'calendar_events'));
    for (const entry of texts) {
      const cleared = Object.keys(entry.cleared);
      assert.deepEqual(
        cleared.filter((column) => entry.other.includes(column)),
        [],
        `${entry.table}: columns both cleared and other`,
      );
      assert.deepEqual([...cleared, ...entry.other].sort(), await textColumns(entry.table), `${entry.table}: its text columns`);
    }
    // A key to patients that does not cascade leaves its rows behind: the law keeps them, or the area's own purge takes them.
    const purging = new Set(declarations.filter((data) => data.purge).flatMap((data) => data.tables));
    const { rows } = await sql<{ table_name: string }>`
      SELECT c.relname AS table_name FROM pg_constraint f
      JOIN pg_class c ON c.oid = f.conrelid
      JOIN pg_class p ON p.oid = f.confrelid AND p.relname = 'patients'
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      WHERE f.contype = 'f' AND f.confdeltype <> 'c' ORDER BY 1`.execute(app.services.db);
    const kept = new Set(Object.values(keptTables));
    assert.deepEqual(
      rows.map((row) => row.table_name).filter((table) => !kept.has(table) && !purging.has(table)),
      [],
      'keys to patients that do not cascade, on tables a purge neither keeps nor purges itself',
    );
  });

  test("leaves none of the patient's id, names, phone or email outside what its answer lists as kept", async () => {
    for (const table of [
      'patients',
      'contacts',
      'files',
      'fhir_export_files',
      'idempotency_keys',
      'invoices',
      'sandbox_messages',
      'calendar_events',
      'calendar_event_participants',
      'tasks',
      'encounter_comments',
      'email_drafts',
    ])
      assert.ok(before[table], `the fixtures hold nothing of the patient in ${table}: ${JSON.stringify(before)}`);
    assert.ok(blobsHolding([patientId]).length > 0, 'no blob names the patient before the purge');

    const kicked = await t.api.post(`${t.base}/patients/${patientId}/purge`, { confirm: patientId });
    assert.equal(kicked.status, 202, kicked.text);
    clock.advance(1000);
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

    // The shared event stays the care team's: its times and other participant, its text cleared, its stamp the purge's.
    const event = await t.api.get(`${t.base}/calendar/events/${shared.id}`);
    assert.equal(event.status, 200, event.text);
    assert.equal(event.body.eventTitle, '[removed]');
    assert.equal(event.body.eventDescription, '[removed]');
    assert.equal(event.body.additionalInfo, null);
    assert.equal(event.body.eventType, 'APPOINTMENT');
    assert.equal(event.body.startDateTime, visit.startDateTime);
    assert.deepEqual(
      event.body.participants.map((p: { participantId: string }) => p.participantId),
      [user],
    );
    assert.equal(event.body.updatedAt, clock.now().toISOString());
    // Another patient's event is untouched.
    const untouched = await t.api.get(`${t.base}/calendar/events/${theirs.id}`);
    assert.equal(untouched.body.eventTitle, 'Visit of Stays Here');
    assert.equal(untouched.body.updatedAt, theirs.updatedAt);
  });
});
