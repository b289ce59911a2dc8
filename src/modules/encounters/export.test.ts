import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/** Encounters, their comments and dispositions in the bulk export (002 "Export"): each item as its own read route shows it. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

interface Item {
  id: string;
}
interface Setup {
  t: TestTenant;
  /** The patient's encounters. */
  base: string;
  host: string;
}

async function setup(): Promise<Setup> {
  const t = await createTestTenant(
    app,
    testFormation({
      encounterDisposition: { fields: [{ name: 'outcome', type: 'select', options: ['RESOLVED', 'FOLLOW_UP'] }] },
    }),
  );
  const host = await t.api.post(`${t.admin}/users`, {
    username: 'host',
    email: 'host@example.org',
    firstName: 'Dana',
    lastName: 'Host',
    timezone: 'US/Pacific',
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(host.status, 201, host.text);
  const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Lee' });
  return { t, base: `${t.base}/patients/${patient.id}/encounters`, host: host.body.id };
}

/** An encounter with its appointment (which makes its disposition in the same write), a moment after the last write. */
async function encounter(s: Setup, title: string): Promise<string> {
  clock.advance(1);
  const created = await s.t.api.post(s.base, {
    title,
    currentScheduledAppointment: {
      startDateTime: '2026-07-01T16:00:00Z',
      endDateTime: '2026-07-01T16:30:00Z',
      hostId: s.host,
      eventMode: 'IN-PERSON',
    },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

async function comment(s: Setup, encounterId: string, text: string): Promise<string> {
  clock.advance(1);
  const created = await s.t.api.post(`${s.base}/${encounterId}/comments`, { text });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

async function change(request: Promise<{ status: number; text: string }>) {
  clock.advance(1);
  const response = await request;
  assert.equal(response.status, 200, response.text);
}

describe('export of encounters', () => {
  test('ENCOUNTER, ENCOUNTER_COMMENT and ENCOUNTER_DISPOSITION: each record once, oldest update first, as its read route shows it', async () => {
    const s = await setup();
    const [first, second, third] = [await encounter(s, 'First'), await encounter(s, 'Second'), await encounter(s, 'Third')];
    const comments = [await comment(s, first, 'One'), await comment(s, second, 'Two'), await comment(s, first, 'Three')];
    // The first of each changed last: it comes last.
    await change(s.t.api.patch(`${s.base}/${first}`, { title: 'First, renamed' }));
    await change(s.t.api.patch(`${s.base}/${first}/comments/${comments[0]}`, { text: 'One, changed' }));
    await change(s.t.api.patch(`${s.base}/${first}/disposition`, { outcome: 'RESOLVED' }));
    clock.advance(SETTLE);

    const encounters = await walkExport<Item>(s.t, 'ENCOUNTER');
    assert.deepEqual(
      encounters.map((item) => item.id),
      [second, third, first],
    );
    for (const item of encounters) assert.deepEqual(item, (await s.t.api.get(`${s.base}/${item.id}`)).body);

    const exportedComments = await walkExport<Item>(s.t, 'ENCOUNTER_COMMENT');
    assert.deepEqual(
      exportedComments.map((item) => item.id),
      [comments[1], comments[2], comments[0]],
    );
    for (const item of exportedComments) {
      const { encounterId } = item as Item & { encounterId: string };
      const listed = (await s.t.api.get<Item[]>(`${s.base}/${encounterId}/comments`)).body;
      assert.deepEqual(
        item,
        listed.find((one) => one.id === item.id),
      );
    }

    const dispositions = await walkExport<Item>(s.t, 'ENCOUNTER_DISPOSITION');
    const dispositionOf = async (id: string) => (await s.t.api.get<Item>(`${s.base}/${id}/disposition`)).body;
    const expected = [await dispositionOf(second), await dispositionOf(third), await dispositionOf(first)];
    assert.deepEqual(dispositions, expected);
    assert.equal((dispositions[2] as Item & { jsonBody: { outcome: string } }).jsonBody.outcome, 'RESOLVED');
  });

  test('403 without the export permission; another tenant sees none of them', async () => {
    const s = await setup();
    const id = await encounter(s, 'Mine');
    const commentId = await comment(s, id, 'Mine');
    clock.advance(SETTLE);
    const reader = await s.t.apiWith(['ENCOUNTER_READ']);
    for (const resource of ['ENCOUNTER', 'ENCOUNTER_COMMENT', 'ENCOUNTER_DISPOSITION']) {
      assertCode(await reader.get(`${s.t.base}/export/${resource}`), 403, 'ACCESS_DENIED');
    }
    const encountersOnly = await s.t.apiWith(['ENCOUNTER_EXPORT']);
    assert.equal((await encountersOnly.get(`${s.t.base}/export/ENCOUNTER`)).status, 200);
    assertCode(await encountersOnly.get(`${s.t.base}/export/ENCOUNTER_COMMENT`), 403, 'ACCESS_DENIED');

    const other = await setup();
    const theirs = await encounter(other, 'Theirs');
    clock.advance(SETTLE);
    assert.deepEqual(
      (await walkExport<Item>(s.t, 'ENCOUNTER')).map((item) => item.id),
      [id],
    );
    assert.deepEqual(
      (await walkExport<Item>(other.t, 'ENCOUNTER')).map((item) => item.id),
      [theirs],
    );
    assert.deepEqual(await walkExport<Item>(other.t, 'ENCOUNTER_COMMENT'), []);
    assert.deepEqual(
      (await walkExport<Item>(s.t, 'ENCOUNTER_COMMENT')).map((item) => item.id),
      [commentId],
    );
    const mine = (await walkExport<Item>(s.t, 'ENCOUNTER_DISPOSITION')) as (Item & { jsonBody: { source_id: string } })[];
    assert.deepEqual(
      mine.map((item) => item.jsonBody.source_id),
      [id],
    );
  });
});
