import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/** Calendar events in the bulk export (002 "Export"): each item as GET /calendar/events/{id} shows it. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

interface Item {
  id: string;
}
interface Setup {
  t: TestTenant;
  host: string;
  nurse: string;
  patient: string;
}

async function member(t: TestTenant, username: string, timezone: string): Promise<string> {
  const created = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Ada',
    lastName: username,
    timezone,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

async function setup(): Promise<Setup> {
  const t = await createTestTenant(app);
  const host = await member(t, 'host', 'US/Pacific');
  const nurse = await member(t, 'nurse', 'Europe/Paris');
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
  return { t, host, nurse, patient };
}

/** An event with the patient and the nurse taking part, a moment after the last write. */
async function event(s: Setup, title: string, day: string): Promise<string> {
  clock.advance(1);
  const created = await s.t.api.post(`${s.t.base}/calendar/events`, {
    eventTitle: title,
    eventType: 'APPOINTMENT',
    startDateTime: `${day}T16:00:00Z`,
    endDateTime: `${day}T17:00:00Z`,
    hostId: s.host,
    participants: [
      { participantId: s.patient, participantRole: 'patient' },
      { participantId: s.nurse, participantRole: 'psm', attended: true },
    ],
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

describe('export of calendar events', () => {
  test('CALENDAR_EVENT: each event once, oldest update first, as GET /calendar/events/{id} shows it', async () => {
    const s = await setup();
    const first = await event(s, 'First', '2026-07-01');
    const second = await event(s, 'Second', '2026-07-02');
    // An encounter's appointment: its item carries the encounter info, as the read route shows it.
    clock.advance(1);
    const encounter = await s.t.api.post(`${s.t.base}/patients/${s.patient}/encounters`, {
      title: 'Visit',
      currentScheduledAppointment: {
        startDateTime: '2026-07-03T16:00:00Z',
        endDateTime: '2026-07-03T16:30:00Z',
        hostId: s.host,
        eventMode: 'IN-PERSON',
      },
    });
    assert.equal(encounter.status, 201, encounter.text);
    const third = encounter.body.jsonBody.calendarEventId as string;
    // The first changed last: it comes last.
    clock.advance(1);
    const changed = await s.t.api.patch(`${s.t.base}/calendar/events/${first}`, { eventTitle: 'First, moved' });
    assert.equal(changed.status, 200, changed.text);

    // Just written: there at once.
    assert.deepEqual(
      (await walkExport<Item>(s.t, 'CALENDAR_EVENT')).map((item) => item.id),
      [second, third, first],
    );
    clock.advance(SETTLE);
    const items = await walkExport<Item>(s.t, 'CALENDAR_EVENT');
    assert.deepEqual(
      items.map((item) => item.id),
      [second, third, first],
    );
    for (const item of items) assert.deepEqual(item, (await s.t.api.get(`${s.t.base}/calendar/events/${item.id}`)).body);
    const [, appointment, moved] = items as (Item & {
      eventTitle: string;
      participants: unknown[];
      encounterInfo: { encounterId: string } | null;
    })[];
    assert.equal(appointment!.encounterInfo?.encounterId, encounter.body.id);
    assert.equal(moved!.eventTitle, 'First, moved');
    assert.equal(moved!.participants.length, 2);
  });

  test('403 without the export permission; another tenant sees none of them', async () => {
    const s = await setup();
    const mine = await event(s, 'Mine', '2026-07-01');
    clock.advance(SETTLE);
    const url = `${s.t.base}/export/CALENDAR_EVENT`;
    assertCode(await (await s.t.apiWith(['CALENDAR_READ'])).get(url), 403, 'ACCESS_DENIED');
    assert.equal((await (await s.t.apiWith(['CALENDAR_EVENT_EXPORT'])).get(url)).status, 200);

    const other = await setup();
    const theirs = await event(other, 'Theirs', '2026-07-01');
    clock.advance(SETTLE);
    assert.deepEqual(
      (await walkExport<Item>(s.t, 'CALENDAR_EVENT')).map((item) => item.id),
      [mine],
    );
    assert.deepEqual(
      (await walkExport<Item>(other.t, 'CALENDAR_EVENT')).map((item) => item.id),
      [theirs],
    );
  });
});
