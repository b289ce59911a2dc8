import type { Context } from '../../http/context.ts';
import { knownZone, localDateTime } from '../../wire/local-time.ts';
import { compareDays, instantAt, localDay, nextDay } from '../../wire/wall-clock.ts';
import type { CalendarEventView, WorkHoursView } from './schemas.ts';
import { type EventRow, eventsOfMembers, type Range, usersAmong, type WorkHoursRow, workHoursOf } from './store.ts';
import { eventViews, workHoursView, zoneFor } from './views.ts';
import { endsAtMidnight } from './work-hours.ts';

/**
 * Care-team members' schedules (DECISIONS §7): for each member asked, in the order asked, their
 * work hours and their events in a range. One statement per kind for all members: the rules, the
 * events (as host or participant), then the events' participants and encounters.
 */

export interface ScheduleOptions {
  viewerTimezone?: string | undefined;
  includeCancelled: boolean;
}

interface Loaded {
  members: string[];
  rules: WorkHoursRow[];
  events: (EventRow & { member_id: string })[];
  views: Map<string, CalendarEventView>;
  /** Members' own zones (their work hours are wall-clock times there). */
  zones: Map<string, string | null>;
}

async function load(ctx: Context, psmIds: string[], range: Range, options: ScheduleOptions, full: boolean): Promise<Loaded> {
  const members = [...new Set(psmIds.map((id) => id.toLowerCase()))];
  const [rules, events, users] = await Promise.all([
    workHoursOf(ctx.db, ctx.scope, members, range),
    eventsOfMembers(ctx.db, ctx.scope, members, range, options.includeCancelled),
    usersAmong(ctx.db, ctx.scope.tenantId, members),
  ]);
  const distinct = [...new Map(events.map((event) => [event.id, event])).values()];
  const views = await eventViews(ctx, distinct, { viewerTimezone: options.viewerTimezone, includeEncounterInfo: full });
  return {
    members,
    rules,
    events,
    views: new Map(views.map((view) => [view.id, view])),
    zones: new Map(users.map((user) => [user.id, user.timezone])),
  };
}

function eventsOf(loaded: Loaded, member: string): CalendarEventView[] {
  return loaded.events
    .filter((event) => event.member_id === member)
    .map((event) => loaded.views.get(event.id) as CalendarEventView);
}

function rulesOf(ctx: Context, loaded: Loaded, member: string, viewerTimezone: string | undefined): WorkHoursView[] {
  const zone = zoneFor(ctx, viewerTimezone, loaded.zones.get(member));
  return loaded.rules.filter((rule) => rule.psm_id === member).map((rule) => workHoursView(rule, zone));
}

/** `psm-schedules` (and `full-psm-schedules`, whose events carry their encounter info). */
export async function memberSchedules(ctx: Context, psmIds: string[], range: Range, options: ScheduleOptions, full: boolean) {
  const loaded = await load(ctx, psmIds, range, options, full);
  return loaded.members.map((psmId) => ({
    psmId,
    workHours: rulesOf(ctx, loaded, psmId, options.viewerTimezone),
    events: eventsOf(loaded, psmId),
  }));
}

interface Window {
  start: number;
  end: number;
  encounters: string[];
}

/**
 * The member's AVAILABILITY as windows of time in the range: each day of the member's own zone,
 * the rules covering it (OVERRIDE rules, where any covers the day, in place of the DEFAULT ones),
 * each of their hours on that weekday, cut to the rule's dates and to the range.
 */
export function availabilityWindows(rules: WorkHoursRow[], range: Range, zone: string): Window[] {
  const available = rules.filter((rule) => rule.type === 'AVAILABILITY');
  const windows: Window[] = [];
  if (available.length === 0) return windows;
  const last = localDay(range.to, zone);
  // The day before: a window of the evening before may reach into the range.
  for (
    let day = localDay(new Date(range.from.getTime() - 24 * 60 * 60_000), zone);
    compareDays(day, last) <= 0;
    day = nextDay(day)
  ) {
    const dayStart = instantAt(day, '00:00:00', zone).getTime();
    const dayEnd = instantAt(nextDay(day), '00:00:00', zone).getTime();
    const covering = available.filter((rule) => rule.start_at.getTime() < dayEnd && rule.end_at.getTime() > dayStart);
    const overrides = covering.filter((rule) => rule.rule_type === 'OVERRIDE');
    for (const rule of overrides.length > 0 ? overrides : covering) {
      for (const hours of rule.days_info) {
        if (hours.day !== day.weekday) continue;
        const start = Math.max(instantAt(day, hours.startTime, zone).getTime(), rule.start_at.getTime(), range.from.getTime());
        const end = Math.min(
          endsAtMidnight(hours.endTime) ? dayEnd : instantAt(day, hours.endTime, zone).getTime(),
          rule.end_at.getTime(),
          range.to.getTime(),
        );
        if (end > start) windows.push({ start, end, encounters: rule.encounters });
      }
    }
  }
  return windows.sort((a, b) => a.start - b.start);
}

/** The windows with the booked time taken out: a window an event splits becomes two. */
export function minusBooked(windows: Window[], booked: { start: number; end: number }[]): Window[] {
  let free = windows;
  for (const event of booked) {
    free = free.flatMap((window) => {
      if (event.end <= window.start || event.start >= window.end) return [window];
      const parts: Window[] = [];
      if (event.start > window.start) parts.push({ ...window, end: event.start });
      if (event.end < window.end) parts.push({ ...window, start: event.end });
      return parts;
    });
  }
  return free;
}

/** `available-psm-schedules`: the AVAILABILITY windows minus the booked events, and those events. */
export async function availableSchedules(ctx: Context, psmIds: string[], range: Range, options: ScheduleOptions) {
  const loaded = await load(ctx, psmIds, range, options, false);
  return loaded.members.map((psmId) => {
    const ownZone = knownZone(loaded.zones.get(psmId));
    const viewZone = zoneFor(ctx, options.viewerTimezone, loaded.zones.get(psmId));
    const events = loaded.events.filter((event) => event.member_id === psmId);
    const booked = events
      .filter((event) => event.event_status?.toUpperCase() !== 'CANCELLED')
      .map((event) => ({ start: event.start_at.getTime(), end: event.end_at.getTime() }));
    const rules = loaded.rules.filter((rule) => rule.psm_id === psmId);
    const windows = minusBooked(availabilityWindows(rules, range, ownZone), booked);
    return {
      psmId,
      workHours: windows.map((window) => ({
        startDateTime: new Date(window.start),
        endDateTime: new Date(window.end),
        localStartDateTime: localDateTime(new Date(window.start), viewZone),
        localEndDateTime: localDateTime(new Date(window.end), viewZone),
        encounters: window.encounters,
      })),
      events: events.map((event) => loaded.views.get(event.id) as CalendarEventView),
    };
  });
}
