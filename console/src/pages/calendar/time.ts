/**
 * Wall-clock times in IANA zones with the browser's Intl only: a calendar day is `YYYY-MM-DD`, a time
 * of day `HH:MM[:SS]`, an instant milliseconds since the epoch.
 */

const DAY_MS = 24 * 60 * 60_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock of an instant in a zone. */
export function wallClock(instant: number, zone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const asUtc = (clock: WallClock) => Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(instant: number, zone: string): number {
  return asUtc(wallClock(instant, zone)) - Math.floor(instant / 1000) * 1000;
}

/** The calendar day of an instant in a zone. */
export function dayOf(instant: number, zone: string): string {
  const clock = wallClock(instant, zone);
  return `${pad(clock.year, 4)}-${pad(clock.month)}-${pad(clock.day)}`;
}

/** `HH:MM` of an instant in a zone. */
export function timeOf(instant: number, zone: string): string {
  const clock = wallClock(instant, zone);
  return `${pad(clock.hour)}:${pad(clock.minute)}`;
}

const parseDay = (day: string) => day.split('-').map(Number) as [number, number, number];

/** The instant a wall-clock time of a day has in a zone: a skipped time lands past the gap, a repeated one is its first. */
export function instantAt(day: string, time: string, zone: string): number {
  const [year, month, date] = parseDay(day);
  const [hour = 0, minute = 0, second = 0] = time.split(':').map(Number);
  const guess = Date.UTC(year, month - 1, date, hour, minute, second);
  const before = guess - offsetAt(guess - DAY_MS, zone);
  const after = guess - offsetAt(guess + DAY_MS, zone);
  const matches = [before, after].filter((candidate) => asUtc(wallClock(candidate, zone)) === guess);
  return matches.length > 0 ? Math.min(...matches) : before;
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
