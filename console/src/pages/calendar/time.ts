import { instantAt as instantOf, localDay } from '@cairn/wall-clock';
import { TZDate } from '@date-fns/tz';

/**
 * Wall-clock times in IANA zones, through the server's wall-clock.ts: a calendar day is
 * `YYYY-MM-DD`, a time of day `HH:MM[:SS]`, an instant milliseconds since the epoch.
 */

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const parseDay = (day: string) => day.split('-').map(Number) as [number, number, number];

/** The calendar day of an instant in a zone. */
export function dayOf(instant: number, zone: string): string {
  const day = localDay(new Date(instant), zone);
  return `${pad(day.year, 4)}-${pad(day.month)}-${pad(day.day)}`;
}

/** `HH:MM` of an instant in a zone. */
export function timeOf(instant: number, zone: string): string {
  const wall = new TZDate(instant, zone);
  return `${pad(wall.getHours())}:${pad(wall.getMinutes())}`;
}

/** The instant a wall-clock time of a day has in a zone, as the server reads it (a skipped time lands past the gap, a repeated one is its first). */
export function instantAt(day: string, time: string, zone: string): number {
  const [year, month, date] = parseDay(day);
  return instantOf({ year, month, day: date, weekday: weekdayOf(day) }, time, zone).getTime();
}

/** A day `count` days later (or earlier). */
export function addDays(day: string, count: number): string {
  const [year, month, date] = parseDay(day);
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** 1 = Monday … 7 = Sunday. */
export function weekdayOf(day: string): number {
  const [year, month, date] = parseDay(day);
  return ((new Date(Date.UTC(year, month - 1, date)).getUTCDay() + 6) % 7) + 1;
}

/** The Monday beginning the week of a day. */
export const mondayOf = (day: string) => addDays(day, 1 - weekdayOf(day));

/** A real calendar day written `YYYY-MM-DD`. */
export function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  return addDays(text, 0) === text;
}

/** "Mon 23 Nov" (with the year when asked). */
export function dayLabel(day: string, withYear = false): string {
  const [year, month, date] = parseDay(day);
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withYear ? { year: 'numeric' } : {}),
  })
    .format(new Date(Date.UTC(year, month - 1, date)))
    .replace(',', '');
}

/** Whether the runtime knows a zone. */
export function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The browser's zone, and the zones it knows (the browser's own first when the list lacks it). */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
export function knownZones(): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  const zones = new Set(supported);
  zones.add('UTC');
  zones.add(browserZone());
  return [...zones].sort();
}
