import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { createPatient, createTestTenant, type Response, startApp, type TestTenant } from '../../test/harness.ts';
import { statementsSent } from '../../test/statements.ts';

/** A page of calendar events in one statement (issue 43): its participants, zones, encounters and access record. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
/** On Citus a read's access record is a statement of its own (http/context.ts readRecording). */
const recordApart = app.services.dbKind === 'citus';

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

interface Page {
  content: { id: string }[];
  totalElements: number;
}

/** The tenant's access records of this request. */
async function recordsOf(t: TestTenant, requestId: string) {
  const log = await t.api.get(`${t.admin}/access-log?size=100`);
  assert.equal(log.status, 200, log.text);
  return (log.body.data as { requestId: string; patientIds: string[]; matched: number | null }[]).filter(
    (record) => record.requestId === requestId,
  );
}

describe("a host's calendar week", () => {
  test('one statement brings the page, its total, participants, host zones, encounters and the access record', async () => {
    const t = await createTestTenant(app);
    const host = await member(t, 'host', 'US/Pacific');
    const nurse = await member(t, 'nurse', 'Europe/Paris');
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', birthDate: '1980-02-03' })).id;
    for (const day of ['2026-07-01', '2026-07-02']) {
      const created = await t.api.post(`${t.base}/calendar/events`, {
        eventTitle: `Visit ${day}`,
        startDateTime: `${day}T16:00:00Z`,
        endDateTime: `${day}T17:00:00Z`,
        hostId: host,
        participants: [
          { participantId: patient, participantRole: 'patient' },
          { participantId: nurse, participantRole: 'psm', attended: true },
        ],
      });
      assert.equal(created.status, 201, created.text);
    }
    const encounter = await t.api.post(`${t.base}/patients/${patient}/encounters`, {
      title: 'Visit',
      currentScheduledAppointment: {
        startDateTime: '2026-07-03T16:00:00Z',
        endDateTime: '2026-07-03T16:30:00Z',
        hostId: host,
        eventMode: 'IN-PERSON',
      },
    });
    assert.equal(encounter.status, 201, encounter.text);

    const week = `${t.base}/calendar/events?participantIds=${host}&from=2026-06-29T00:00:00Z&to=2026-07-06T00:00:00Z&size=50`;
    await t.api.get(week); // the caller's token, tenant and instance are cached from here on
    for (const url of [week, `${week}&includeEncounterInfo=true`, `${week}&viewerTimezone=Asia/Tokyo`]) {
      let answer: Response<Page> | undefined;
      const sent = await statementsSent(async () => {
        answer = await t.api.get<Page>(url);
      });
      assert.equal(answer?.status, 200, answer?.text);
      assert.equal(sent.length, recordApart ? 2 : 1, `${url}\n${sent.join('\n\n')}`);
      const { content, totalElements } = answer!.body;
      assert.equal(totalElements, 3);
      assert.deepEqual(
        (await recordsOf(t, answer!.headers['x-request-id'] as string)).map((record) => [record.patientIds, record.matched]),
        [[[patient], 3]],
        'one record: the patient the page shows, and its total',
      );
      // Each event as its own read shows it (which reads them apart, views.ts eventViews).
      for (const event of content) {
        const zone = url.includes('viewerTimezone') ? '?viewerTimezone=Asia/Tokyo' : '';
        const { encounterInfo, ...read } = (await t.api.get(`${t.base}/calendar/events/${event.id}${zone}`)).body;
        if (url.includes('includeEncounterInfo')) assert.deepEqual(event, { ...read, encounterInfo });
        else assert.deepEqual(event, read);
      }
    }
  });
});
