import { isTimeZone } from './formats.ts';

/**
 * The one writer of `local…` fields (DECISIONS §1, PROD-SHAPES "Timestamps"): an instant as the
 * wall-clock time of a time zone, `YYYY-MM-DDTHH:mm:ss.SSS±HH:MM` (`+00:00` in UTC, never `Z`).
 * Every area that shows a local time (assessment records now; calendar, encounters, messages
 * later) writes it through here, in the zone of the request's caller (`ctx.timezone`). The other
 * direction, a wall clock to an instant, is wall-clock.ts.
 */

/** The zone used when none is known: API clients and users without a time zone (PROD-SHAPES: `+00:00`). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** A zone this runtime knows, or UTC: a zone stored before it was checked must not fail a read. */
export function knownZone(timeZone: string | null | undefined): string {
  return timeZone && isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE;
}

/** Formatters are costly to build and zones are few: one per zone, kept for the process. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    // Throws a RangeError for a zone the runtime does not know, before anything is cached.
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at `instant`, in whole minutes (east positive). */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const parts: Record<string, string> = {};
  for (const part of formatterOf(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  const wall = new Date(0);
  // Instants are of the years 0001–9999 (DECISIONS §1), so the year is never before the era.
  wall.setUTCFullYear(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  const whole = Math.floor(instant.getTime() / 1000) * 1000;
  // Historic local mean times have offsets in seconds (-07:52:58); the wire writes minutes, so the
  // offset is rounded and the wall time below computed from it: the text still names the instant.
  return Math.round((wall.getTime() - whole) / 60_000);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `instant` in `timeZone` (an IANA name such as `US/Pacific`), e.g. `2022-06-28T07:00:00.000-07:00`. */
export function localDateTime(instant: Date, timeZone: string = DEFAULT_TIME_ZONE): string {
  const offset = offsetMinutes(instant, timeZone);
  const wall = new Date(instant.getTime() + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const size = Math.abs(offset);
  return (
    `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}` +
    `T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}.${pad(wall.getUTCMilliseconds(), 3)}` +
    `${sign}${pad(Math.floor(size / 60))}:${pad(size % 60)}`
  );
}

/** As `localDateTime`, null for a missing instant (a record not yet finalized). */
export function localDateTimeOrNull(instant: Date | null | undefined, timeZone: string = DEFAULT_TIME_ZONE): string | null {
  return instant ? localDateTime(instant, timeZone) : null;
}
