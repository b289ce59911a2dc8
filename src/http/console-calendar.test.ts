import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';

/**
 * The console's Calendar page in a browser at 1280 and 390 px: a member's week (the week of
 * 2026-11-23, opened by its path) with their events and work hours in the viewer's zone
 * (the browser's, emulated as America/New_York; then UTC chosen on the page), a week forward and
 * back, an event added with the API's field errors beside the fields, and axe-core.
 */
const { t, open, signInAsClient, checkAccessibility, shoot } = await consoleBrowser();

const WEEK = '2026-11-23';
let member = '';

before(async () => {
  if (skipBrowser) return;
  // A care-team member in Paris: work hours 09:00–17:00 there, Monday to Friday.
  const user = await t.api.post(`${t.admin}/users`, {
    username: 'calendar.member',
    email: 'calendar.member@example.org',
    firstName: 'Cal',
    lastName: 'Member',
    timezone: 'Europe/Paris',
  });
  assert.equal(user.status, 201, user.text);
  member = user.body.id;
  const hours = await t.api.post(`${t.base}/calendar/work-hours`, {
    psmId: member,
    type: 'WORKING_HOURS',
    startDateTime: '2026-01-01T00:00:00Z',
    daysInfo: [1, 2, 3, 4, 5].map((day) => ({ day, startTime: '09:00:00', endTime: '17:00:00' })),
  });
  assert.equal(hours.status, 201, hours.text);
  const events = [
    { eventTitle: 'Check-in', startDateTime: '2026-11-24T15:00:00Z', endDateTime: '2026-11-24T16:00:00Z' },
    // Thursday in UTC, Wednesday evening in New York.
    { eventTitle: 'Late call', startDateTime: '2026-11-26T03:00:00Z', endDateTime: '2026-11-26T04:00:00Z' },
    {
      eventTitle: 'Day off',
      eventType: 'LEAVE',
      allDayEvent: true,
      timezone: 'America/New_York',
      startDateTime: '2026-11-27T12:00:00Z',
      endDateTime: '2026-11-27T13:00:00Z',
    },
    { eventTitle: 'Next visit', startDateTime: '2026-12-01T15:00:00Z', endDateTime: '2026-12-01T15:30:00Z' },
  ];
  for (const event of events) {
    const made = await t.api.post(`${t.base}/calendar/events`, { ...event, hostId: member, participants: [] });
    assert.equal(made.status, 201, made.text);
  }
});

/** The text of an event on a day of the week shown. */
const eventOn = (page: Page, day: string, title: string) => page.locator(`li[data-day="${day}"] [data-event="${title}"]`);

describe('the Calendar page in a browser', { skip: skipBrowser }, () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: a member's week in the viewer's zone, a week on and back, an event added`, async () => {
      const wide = width === 1280;
      // The week's own path, opened before signing in (as a link followed would be), is kept through
      // it; the browser's zone is the one the page takes as the viewer's by default.
      const { page, problems } = await open(width, { path: `calendar/${WEEK}`, timezoneId: 'America/New_York' });
      await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
      await page.getByRole('heading', { name: 'Calendar', level: 1 }).waitFor();
      assert.equal(await page.getByLabel("Viewer's time zone").inputValue(), 'America/New_York');
      await page.getByTestId('empty').filter({ hasText: 'Choose a member' }).waitFor();

      await page.getByLabel('Member', { exact: true }).selectOption({ label: 'Cal Member (calendar.member)' });
      await page.getByRole('heading', { name: 'Week of Mon 23 Nov 2026 to Sun 29 Nov 2026' }).waitFor();
      // 15:00 UTC is 10:00 in New York; 03:00 UTC on Thursday is 22:00 on Wednesday there.
      await eventOn(page, '2026-11-24', 'Check-in').filter({ hasText: '10:00–11:00' }).waitFor();
      await eventOn(page, '2026-11-25', 'Late call').filter({ hasText: '22:00–23:00' }).waitFor();
      // An all-day event filling the viewer's day is marked so, without times.
      await eventOn(page, '2026-11-27', 'Day off').filter({ hasText: 'All day' }).waitFor();
      assert.doesNotMatch((await eventOn(page, '2026-11-27', 'Day off').textContent()) ?? '', /\d\d:\d\d/);
      assert.equal(await page.locator('[data-event="Next visit"]').count(), 0);
      // 09:00–17:00 in Paris is 03:00–11:00 in New York, Monday to Friday.
      for (const day of ['2026-11-23', '2026-11-27']) {
        assert.equal(await page.locator(`li[data-day="${day}"] [data-work-hours="03:00-11:00"]`).count(), 1, day);
      }
      assert.equal(await page.locator('li[data-day="2026-11-28"] [data-work-hours]').count(), 0);
      await checkAccessibility(page, `calendar at ${width}`);
      if (wide) await shoot(page, 'calendar');

      // A week on and back: the week is the page.
      await page.getByRole('button', { name: 'Next week' }).click();
      await page.getByRole('heading', { name: 'Week of Mon 30 Nov 2026 to Sun 6 Dec 2026' }).waitFor();
      await eventOn(page, '2026-12-01', 'Next visit').filter({ hasText: '10:00–10:30' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/calendar/2026-11-30');
      await page.getByRole('button', { name: 'Previous week' }).click();
      await eventOn(page, '2026-11-24', 'Check-in').waitFor();
      assert.equal(await page.locator('[data-event="Next visit"]').count(), 0);

      // An event added: the API's field errors beside the fields, then the event in the week.
      const title = `Added at ${width}`;
      await page.getByLabel('Title').fill(title);
      await page.getByRole('button', { name: 'Add event' }).click();
      await page.locator('[data-field-error="startDateTime"]').waitFor();
      assert.equal(await page.getByLabel('Starts').getAttribute('aria-invalid'), 'true');
      await page.getByLabel('Starts').fill('2026-11-28T09:30');
      await page.getByLabel('Ends').fill('2026-11-28T10:15');
      await page.getByRole('button', { name: 'Add event' }).click();
      await page.getByText(`${title} was added`).waitFor();
      await eventOn(page, '2026-11-28', title).filter({ hasText: '09:30–10:15' }).waitFor();

      // Another viewer's zone: the same instants on UTC's clock and days.
      await page.getByLabel("Viewer's time zone").selectOption('UTC');
      await eventOn(page, '2026-11-24', 'Check-in').filter({ hasText: '15:00–16:00' }).waitFor();
      await eventOn(page, '2026-11-26', 'Late call').filter({ hasText: '03:00–04:00' }).waitFor();
      await eventOn(page, '2026-11-28', title).filter({ hasText: '14:30–15:15' }).waitFor();
      assert.equal(await page.locator('li[data-day="2026-11-23"] [data-work-hours="08:00-16:00"]').count(), 1);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }
});
