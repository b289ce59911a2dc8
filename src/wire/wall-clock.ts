import { TZDate } from '@date-fns/tz';

/**
 * A zone's wall clock and the instants it names, both ways (work hours are `HH:MM:SS` on weekdays
 * in a member's zone), through @date-fns/tz, never a hand-written offset. Only the library: the
 * operator console's calendar uses this file too, so the browser reads a week as the server does.
 */

/** A calendar day, as a zone's wall clock reads it. */
export interface LocalDay {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  /** 1 = Monday … 7 = Sunday (ISO, as work hours number them). */
  weekday: number;
}

/** The day `instant` falls on in `timeZone`. */
export function localDay(instant: Date, timeZone: string): LocalDay {
  const wall = new TZDate(instant.getTime(), timeZone);
  return { year: wall.getFullYear(), month: wall.getMonth() + 1, day: wall.getDate(), weekday: wall.getDay() || 7 };
}

/** The day after `day` (the calendar's, not 24 hours later). */
export function nextDay(day: LocalDay): LocalDay {
  const next = new Date(0);
  // setUTCFullYear, not Date.UTC: years 0–99 are not read as 1900–1999.
  next.setUTCFullYear(day.year, day.month - 1, day.day + 1);
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate(), weekday: next.getUTCDay() || 7 };
}

/** Whether two days are in order: negative when `a` is before `b`. */
export function compareDays(a: LocalDay, b: LocalDay): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/**
 * The instant the wall clock of `timeZone` shows `time` (`HH:MM:SS`) on `day`. Across a change of
 * offset: a time the clocks skip (02:30 on a spring-forward night) is read with the offset before
 * the change, landing as far past the gap's start as it was asked (03:30 PDT); a time that occurs
 * twice (01:30 on a fall-back night) is its first occurrence. Lord Howe's 30-minute shift included.
 */
export function instantAt(day: LocalDay, time: string, timeZone: string): Date {
  const [hours = 0, minutes = 0, seconds = 0] = time.split(':').map(Number);
  const wall = new TZDate(2000, 0, 1, hours, minutes, seconds, timeZone);
  // Set after: the constructor reads years 0–99 as 1900–1999.
  wall.setFullYear(day.year, day.month - 1, day.day);
  wall.setHours(hours, minutes, seconds, 0);
  const guess = wall.getTime();
  // The library picks one of a repeated time's two instants; an earlier one showing the same wall time wins.
  for (const back of [60, 30]) {
    const earlier = guess - back * 60_000;
    const shown = new TZDate(earlier, timeZone);
    if (
      shown.getHours() === hours &&
      shown.getMinutes() === minutes &&
      shown.getSeconds() === seconds &&
      shown.getDate() === day.day
    )
      return new Date(earlier);
  }
  return new Date(guess);
}
