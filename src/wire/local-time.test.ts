import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { localDateTime, localDateTimeOrNull, offsetMinutes } from './local-time.ts';

describe('localDateTime', () => {
  test('writes the wall-clock time of the zone with its offset, milliseconds kept', () => {
    const instant = new Date('2022-06-28T14:00:00.123Z');
    assert.equal(localDateTime(instant, 'US/Pacific'), '2022-06-28T07:00:00.123-07:00');
    assert.equal(localDateTime(instant, 'America/New_York'), '2022-06-28T10:00:00.123-04:00');
    assert.equal(localDateTime(instant, 'Asia/Kolkata'), '2022-06-28T19:30:00.123+05:30');
    assert.equal(localDateTime(instant, 'Asia/Kathmandu'), '2022-06-28T19:45:00.123+05:45');
  });

  test('UTC, and no zone at all, are +00:00 rather than Z', () => {
    const instant = new Date('2024-01-02T03:04:05.006Z');
    assert.equal(localDateTime(instant, 'UTC'), '2024-01-02T03:04:05.006+00:00');
    assert.equal(localDateTime(instant), '2024-01-02T03:04:05.006+00:00');
  });

  test('follows daylight saving time on both sides of a change', () => {
    // US/Pacific moved to PDT at 2024-03-10 10:00Z (02:00 local).
    assert.equal(localDateTime(new Date('2024-03-10T09:59:59.999Z'), 'US/Pacific'), '2024-03-10T01:59:59.999-08:00');
    assert.equal(localDateTime(new Date('2024-03-10T10:00:00.000Z'), 'US/Pacific'), '2024-03-10T03:00:00.000-07:00');
    assert.equal(localDateTime(new Date('2024-11-03T09:00:00.000Z'), 'US/Pacific'), '2024-11-03T01:00:00.000-08:00');
    assert.equal(offsetMinutes(new Date('2024-07-01T00:00:00Z'), 'US/Hawaii'), -600);
  });

  test('crosses the date line and year ends, and pads early years', () => {
    assert.equal(localDateTime(new Date('2023-12-31T23:30:00.000Z'), 'Pacific/Kiritimati'), '2024-01-01T13:30:00.000+14:00');
    assert.equal(localDateTime(new Date('2024-01-01T05:00:00.000Z'), 'US/Eastern'), '2024-01-01T00:00:00.000-05:00');
    assert.equal(localDateTime(new Date('0050-06-01T12:00:00.000Z'), 'UTC'), '0050-06-01T12:00:00.000+00:00');
  });

  test('the text always names the same instant, even where the historic offset had seconds', () => {
    for (const iso of ['1850-01-01T12:00:00.500Z', '2024-06-01T00:00:00.000Z', '1900-01-01T00:00:00.000Z']) {
      for (const zone of ['US/Pacific', 'Europe/Amsterdam', 'Asia/Kolkata']) {
        const text = localDateTime(new Date(iso), zone);
        assert.match(text, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/, `${iso} ${zone}`);
        assert.equal(new Date(text).getTime(), new Date(iso).getTime(), `${iso} ${zone}: ${text}`);
      }
    }
  });

  test('an unknown zone is an error; a missing instant is null', () => {
    assert.throws(() => localDateTime(new Date(), 'Mars/Olympus'), RangeError);
    assert.equal(localDateTimeOrNull(null, 'US/Pacific'), null);
    assert.equal(localDateTimeOrNull(new Date('2024-01-01T00:00:00Z'), 'US/Pacific'), '2023-12-31T16:00:00.000-08:00');
  });
});
