import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { createPatient, createTestTenant, type Response, startApp } from '../../test/harness.ts';
import { statementsSent } from '../../test/statements.ts';

/** What a read of full encounters costs in statements (issue 43): counted, so it cannot grow back. */

interface FullPage {
  metaInfo: { totalElements: number };
  data: { userRelatedToCalendarEvent: { id: string }; comments: unknown[]; calendarEvent: unknown }[];
}

const app = await startApp({}, { clock: new TestClock('2026-06-01T12:00:00.000Z') });

test("a patient's full encounters are one statement, their access record in it (two on Citus, which records apart)", async () => {
  const t = await createTestTenant(app);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
  const host = await t.api.post(`${t.admin}/users`, {
    username: 'host',
    email: 'host@example.org',
    firstName: 'Dana',
    lastName: 'Host',
    timezone: 'US/Pacific',
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(host.status, 201, host.text);
  const encounters = `${t.base}/patients/${patient}/encounters`;
  const appointment = { startDateTime: '2026-07-01T16:00:00Z', endDateTime: '2026-07-01T16:30:00Z', eventMode: 'IN-PERSON' };
  const booked = await t.api.post(encounters, {
    title: 'Visit',
    currentScheduledAppointment: { ...appointment, hostId: host.body.id },
  });
  assert.equal(booked.status, 201, booked.text);
  assert.equal((await t.api.post(encounters, { title: 'Call' })).status, 201);
  assert.equal((await t.api.post(`${encounters}/${booked.body.id}/comments`, { text: 'Bring the forms' })).status, 201);

  const url = `${t.base}/patients/${patient}/full-encounters?direction=ASC`;
  const answers: Response<FullPage>[] = [];
  const sent = await statementsSent(async () => answers.push(await t.api.get<FullPage>(url)));
  const [answer] = answers;
  assert.ok(answer);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(sent.length, app.services.dbKind === 'citus' ? 2 : 1, sent.join('\n----\n'));
  assert.equal(answer.body.metaInfo.totalElements, 2);

  // Each item as the one full encounter's read (built from its own statements) shows it.
  const [first, second] = answer.body.data;
  assert.ok(first && second);
  const one = await t.api.get(`${t.base}/patients/${patient}/full-encounters/${booked.body.id}`);
  assert.equal(JSON.stringify(first), JSON.stringify(one.body));
  assert.equal(first.userRelatedToCalendarEvent.id, host.body.id);
  assert.equal(first.comments.length, 1);
  assert.equal(second.calendarEvent, null);
});
