import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { systemContext } from '../../http/context.ts';
import { TestClock } from '../../test/clock.ts';
import { walkExportPages } from '../../test/export-walk.ts';
import {
  Api,
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  startApp,
  type TestTenant,
} from '../../test/harness.ts';
import { write } from '../../work/write.ts';

/**
 * The bulk export's cursor (002 "Export", DECISIONS §8 and §10) on patients: order, paging, the
 * inclusive start, and the walk's invariants (nothing lost or repeated, no loop), with thousands
 * of records updated at one instant and records changed during a walk.
 */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

interface Item {
  id: string;
  updatedAt: string;
}
interface Page {
  data: Item[];
  cursor: { start: string | null; end: string; hasNext: boolean; pageSize: number };
}

/** `count` copies of a row of `table` in one statement, each with a new id and updated at `at`. */
async function copies(
  t: TestTenant,
  table: string,
  id: string,
  count: number,
  at: Date,
  more: Record<string, string> = {},
  db: Kysely<DB> = app.services.db,
) {
  const changes = sql`jsonb_build_object('id', gen_random_uuid(), 'updated_at', ${at.toISOString()}::timestamptz${sql.join(
    Object.entries(more).map(([key, value]) => sql`, ${key}::text, ${sql.raw(value)}`),
    sql``,
  )})`;
  await sql`
    INSERT INTO ${sql.table(table)}
    SELECT (jsonb_populate_record(null::${sql.table(table)}, to_jsonb(r) || ${changes})).*
    FROM ${sql.table(table)} r, generate_series(1, ${count}::int) AS n
    WHERE r.tenant_id = ${t.tenant.id} AND r.id = ${id}
  `.execute(db);
}

/** Copies of a patient (new ids, MRNs and external ids), updated at `at`; `id` sets the first copy's id. */
function patientCopies(t: TestTenant, of: string, count: number, at: Date, db?: Kysely<DB>, id?: string) {
  const more = { external_guid: 'gen_random_uuid()', mrn: "'COPY' || gen_random_uuid()", external_id: 'null::text' };
  return copies(t, 'patients', of, count, at, id ? { ...more, id: `'${id}'::uuid` } : more, db);
}

/** A task (and the user it is assigned to) in `t`. */
async function createTask(t: TestTenant): Promise<string> {
  const user = await t.api.post(`${t.admin}/users`, {
    username: `nurse${crypto.randomUUID().slice(0, 8)}`,
    email: `nurse${crypto.randomUUID().slice(0, 8)}@example.org`,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(user.status, 201, user.text);
  const task = await t.api.post(`${t.base}/tasks`, {
    name: 'Call the patient',
    status: 'TODO',
    priority: 'MEDIUM',
    assignee: { id: user.body.id },
  });
  assert.equal(task.status, 201, task.text);
  return task.body.id;
}

describe('export', () => {
  test('pages oldest update first, each item as its read route shows it; the last request returns at least one', async () => {
    const t = await createTestTenant(app);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      clock.advance(1);
      ids.push((await createPatient(t, { firstName: `P${index}`, lastName: 'Export' })).id);
    }
    // Just written, with the clock where it was: there at once.
    assert.deepEqual(
      (await t.api.get<Page>(`${t.base}/export/PATIENT`)).body.data.map((item) => item.id),
      ids,
    );
    clock.advance(SETTLE);

    const pages = await walkExportPages<Item>(t, 'PATIENT', { pageSize: 2 });
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [2, 2, 1],
    );
    assert.deepEqual(
      pages.flatMap((page) => page.data.map((item) => item.id)),
      ids,
    );
    assert.deepEqual(
      pages.map((page) => page.cursor.hasNext),
      [true, true, false],
    );
    assert.equal(pages[0]!.cursor.pageSize, 2);
    const read = await t.api.get(`${t.base}/patients/${ids[2]}`);
    assert.deepEqual(pages[1]!.data[0], read.body);
    // `end` is a date-time; sent back after the end, it answers the last record again.
    const last = pages.at(-1)!.cursor.end;
    assert.ok(!Number.isNaN(new Date(last).getTime()), last);
    const again = await t.api.get<Page>(`${t.base}/export/PATIENT?start=${encodeURIComponent(last)}`);
    assert.deepEqual(
      again.body.data.map((item) => item.id),
      [ids[4]],
    );
    assert.equal(again.body.cursor.pageSize, 500);
    // Any date-time starts at the first record updated at or after it.
    const from = await t.api.get<Page>(`${t.base}/export/PATIENT?start=${encodeURIComponent(pages[1]!.data[0]!.updatedAt)}`);
    assert.deepEqual(
      from.body.data.map((item) => item.id),
      ids.slice(2),
    );
  });

  test('10,000 records updated at one instant: walked without a loss, a repeat or a loop', async () => {
    const t = await createTestTenant(app);
    const instant = clock.now();
    await copies(t, 'tasks', await createTask(t), 9_999, instant);
    await sql`UPDATE tasks SET updated_at = ${instant.toISOString()}::timestamptz WHERE tenant_id = ${t.tenant.id}`.execute(
      app.services.db,
    );
    clock.advance(SETTLE);
    const pages = await walkExportPages<Item>(t, 'TASK', { pageSize: 500 });
    const seen = pages.flatMap((page) => page.data.map((item) => item.id));
    assert.equal(seen.length, 10_000);
    assert.equal(new Set(seen).size, 10_000);
    assert.equal(pages.length, 20);
    // A page boundary inside the instant carries the next record's id in the fraction.
    assert.match(pages[0]!.cursor.end, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{45}Z$/);

    // Small pages across a group: every boundary falls inside it.
    const small = await createTestTenant(app);
    const one = await createPatient(small, { firstName: 'Few', lastName: 'Copies' });
    await patientCopies(small, one.id, 49, instant);
    await sql`UPDATE patients SET updated_at = ${instant.toISOString()}::timestamptz WHERE tenant_id = ${small.tenant.id}`.execute(
      app.services.db,
    );
    const smallPages = await walkExportPages<Item>(small, 'PATIENT', { pageSize: 7 });
    const smallSeen = smallPages.flatMap((page) => page.data.map((item) => item.id));
    assert.equal(new Set(smallSeen).size, 50);
    assert.equal(smallSeen.length, 50);
  });

  test('a record is in the export as soon as its write is answered; a late write inside the settle time is not skipped', async () => {
    const t = await createTestTenant(app);
    const created = await createPatient(t, { firstName: 'Fresh', lastName: 'Export' });
    const first = await t.api.get<Page>(`${t.base}/export/PATIENT`);
    assert.deepEqual(
      first.body.data.map((item) => item.id),
      [created.id],
    );
    assert.equal(first.body.cursor.hasNext, false);
    // A write that took the page's instant and commits after it was read (on PostgreSQL it could
    // have taken it earlier, within the settle time), with an id that sorts first at that
    // instant: the next walk from `end` still meets it.
    const late = '00000000-0000-7000-8000-000000000001';
    await patientCopies(t, created.id, 1, clock.now(), undefined, late);
    const next = await t.api.get<Page>(`${t.base}/export/PATIENT?start=${encodeURIComponent(first.body.cursor.end)}`);
    assert.deepEqual(
      next.body.data.map((item) => item.id),
      [late, created.id],
    );
    // Settled, the cursor ends at the last record again.
    clock.advance(SETTLE);
    const settled = await t.api.get<Page>(`${t.base}/export/PATIENT?start=${encodeURIComponent(first.body.cursor.end)}`);
    const last = await t.api.get<Page>(`${t.base}/export/PATIENT?start=${encodeURIComponent(settled.body.cursor.end)}`);
    assert.deepEqual(
      last.body.data.map((item) => item.id),
      [created.id],
    );
  });

  test('a write still open holds back the records updated after its instant, which come once it commits', {
    skip: app.services.dbKind === 'pglite' && 'PGlite serialises writes: none is open beside a read',
  }, async () => {
    const t = await createTestTenant(app);
    const before = await createPatient(t, { firstName: 'Before', lastName: 'Open' });
    clock.advance(SETTLE);
    let begun!: () => void;
    let release!: () => void;
    const opened = new Promise<void>((resolve) => (begun = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    let openId = '';
    const open = write(systemContext(app.services, t.tenant, t.instance), async (w) => {
      begun();
      await held;
      openId = crypto.randomUUID();
      await patientCopies(t, before.id, 1, w.now, w.db, openId);
    });
    await opened;
    clock.advance(10);
    const after = await createPatient(t, { firstName: 'After', lastName: 'Open' });
    const page = await t.api.get<Page>(`${t.base}/export/PATIENT`);
    assert.deepEqual(
      page.body.data.map((item) => item.id),
      [before.id],
      'held back behind the open write',
    );
    release();
    await open;
    const next = await t.api.get<Page>(`${t.base}/export/PATIENT?start=${encodeURIComponent(page.body.cursor.end)}`);
    assert.deepEqual(
      next.body.data.map((item) => item.id),
      [before.id, openId, after.id],
    );
  });

  test('records changed during a walk: each unchanged one comes once, a changed one again at the end, changed', async () => {
    const t = await createTestTenant(app);
    const ids: string[] = [];
    for (let index = 0; index < 30; index++) {
      clock.advance(1);
      ids.push((await createPatient(t, { firstName: `W${index}`, lastName: 'Walk' })).id);
    }
    clock.advance(SETTLE);
    const seenAlready = ids[1]!;
    const notYetSeen = ids[20]!;
    const next = ids[10]!;
    const pages = await walkExportPages<Item>(t, 'PATIENT', {
      pageSize: 5,
      between: async (page) => {
        if (page !== 1) return;
        // After two pages: one record already exported, the next page's first, and one further on change.
        for (const id of [seenAlready, next, notYetSeen]) {
          const changed = await t.api.patch(`${t.base}/patients/${id}`, { city: 'Changed' });
          assert.equal(changed.status, 200, changed.text);
        }
        clock.advance(SETTLE);
      },
    });
    const items = pages.flatMap((page) => page.data) as (Item & { city: string | null })[];
    const times = new Map<string, string[]>();
    for (const item of items) times.set(item.id, [...(times.get(item.id) ?? []), item.updatedAt]);
    assert.deepEqual([...times.keys()].sort(), [...ids].sort(), 'every record comes');
    for (const [id, seen] of times) {
      assert.equal(new Set(seen).size, seen.length, `${id} came twice at one version`);
      if (id !== seenAlready) assert.equal(seen.length, 1, `${id} came ${seen.length} times`);
    }
    assert.equal(times.get(seenAlready)!.length, 2);
    const last = items.slice(-3);
    assert.deepEqual(new Set(last.map((item) => item.id)), new Set([seenAlready, next, notYetSeen]));
    assert.ok(last.every((item) => item.city === 'Changed'));
  });

  test('400 for a bad page size or start, 401, 403 for a user and without the permission, 404, tenants apart', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Only', lastName: 'Mine' });
    clock.advance(SETTLE);
    const url = `${t.base}/export/PATIENT`;
    assertValidation(await t.api.get(`${url}?pageSize=0`), 'querystring.pageSize');
    assertValidation(await t.api.get(`${url}?pageSize=501`), 'querystring.pageSize');
    assertValidation(await t.api.get(`${url}?start=yesterday`), 'querystring.start');
    assertCode(await t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PATIENT_READ'])).get(url), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['PATIENT_EXPORT'])).get(url)).status, 200);
    assertCode(await (await t.apiWith(['PATIENT_EXPORT'])).get(`${t.base}/export/TASK`), 403, 'ACCESS_DENIED');

    const user = await t.api.post(`${t.admin}/users`, {
      username: 'exporter',
      email: 'exporter@example.org',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    assert.equal(user.status, 201, user.text);
    await t.api.put(`${t.admin}/users/exporter/password`, { password: 'a long enough password' });
    const login = await t.anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'exporter',
      password: 'a long enough password',
    });
    assertCode(await new Api(app.server, login.body.token).get(url), 403, 'ACCESS_FOR_API_CLIENT_RESTRICTED');

    assert.equal((await t.api.get(`${t.base}/export/NOT_A_RESOURCE`)).status, 404);

    const other = await createTestTenant(app);
    await createPatient(other, { firstName: 'Not', lastName: 'Yours' });
    clock.advance(SETTLE);
    const mine = (await t.api.get<Page>(url)).body.data.map((item) => item.id);
    assert.deepEqual(mine, [patient.id]);
    const theirs = (await other.api.get<Page>(`${other.base}/export/PATIENT`)).body.data;
    assert.equal(theirs.length, 1);
    assert.notEqual(theirs[0]!.id, patient.id);
  });
});
