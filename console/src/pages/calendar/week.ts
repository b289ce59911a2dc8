import { addDays, dayOf, instantAt, timeOf, weekdayOf } from './time.ts';

/** A week of one member as the page shows it: events and work hours cut into the viewer's days. */

const DAY_MS = 24 * 60 * 60_000;

/** The fields of a calendar event the week shows. */
export interface EventItem {
  id: string;
  eventTitle: string | null;
  startDateTime: string;
  endDateTime: string;
  localStartDateTime: string;
  localEndDateTime: string;
  allDayEvent: boolean;
  eventType: string | null;
  eventStatus: string | null;
  eventColor: string | null;
}

/** A work hours or availability rule: weekday hours (1 = Monday) in the member's own zone. */
export interface Rule {
  workHoursId: string;
  name: string | null;
  type: string;
  ruleType: string;
  startDateTime: string;
  endDateTime: string;
  daysInfo: { day: number; startTime: string; endTime: string }[];
}

export interface Span {
  start: number;
  end: number;
  type: string;
  name: string | null;
}

const endsAtMidnight = (time: string) => time === '24:00:00' || time === '00:00:00';

/**
 * The rules' hours as spans of time within [from, to): each day of the member's zone, the rules of
 * each type covering it (an OVERRIDE covering the day in place of the DEFAULT ones), each of their
 * hours on that weekday, cut to the rule's dates and the range, as the server reads them.
 */
export function hoursOf(rules: Rule[], memberZone: string, from: number, to: number): Span[] {
  const spans: Span[] = [];
  const last = dayOf(to, memberZone);
  for (let day = dayOf(from - DAY_MS, memberZone); day <= last; day = addDays(day, 1)) {
    const dayStart = instantAt(day, '00:00:00', memberZone);
    const dayEnd = instantAt(addDays(day, 1), '00:00:00', memberZone);
    const weekday = weekdayOf(day);
    for (const type of new Set(rules.map((rule) => rule.type))) {
      const covering = rules.filter(
        (rule) => rule.type === type && Date.parse(rule.startDateTime) < dayEnd && Date.parse(rule.endDateTime) > dayStart,
      );
      const overrides = covering.filter((rule) => rule.ruleType === 'OVERRIDE');
      for (const rule of overrides.length > 0 ? overrides : covering) {
        for (const hours of rule.daysInfo) {
          if (hours.day !== weekday) continue;
          const start = Math.max(instantAt(day, hours.startTime, memberZone), Date.parse(rule.startDateTime), from);
          const end = Math.min(
            endsAtMidnight(hours.endTime) ? dayEnd : instantAt(day, hours.endTime, memberZone),
            Date.parse(rule.endDateTime),
            to,
          );
          if (end > start) spans.push({ start, end, type, name: rule.name });
        }
      }
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

export interface DayHours {
  from: string;
  to: string;
  type: string;
  name: string | null;
}

export interface DayEvent {
  event: EventItem;
  /** Start–end in the viewer's zone; the dates too when the event is not within this day. */
  when: string;
}

export interface Day {
  day: string;
  hours: DayHours[];
  events: DayEvent[];
}

/** `HH:MM` of a local time the API wrote (`YYYY-MM-DDTHH:mm:ss.SSS±HH:MM`). */
const clockOf = (local: string) => local.slice(11, 16);
const dateOf = (local: string) => local.slice(0, 10);

/** The seven days from `monday` in the viewer's zone, each with its events and work hours. */
export function weekOf(monday: string, zone: string, events: EventItem[], spans: Span[], label: (day: string) => string): Day[] {
  return Array.from({ length: 7 }, (_, index) => {
    const day = addDays(monday, index);
    const dayStart = instantAt(day, '00:00:00', zone);
    const dayEnd = instantAt(addDays(day, 1), '00:00:00', zone);
    const hours = spans
      .filter((span) => span.start < dayEnd && span.end > dayStart)
      .map((span) => ({
        from: timeOf(Math.max(span.start, dayStart), zone),
        to: span.end >= dayEnd ? '24:00' : timeOf(span.end, zone),
        type: span.type,
        name: span.name,
      }));
    const dayEvents = events
      .filter((event) => {
        const start = Date.parse(event.startDateTime);
        const end = Date.parse(event.endDateTime);
        return (start < dayEnd && end > dayStart) || (start === end && start >= dayStart && start < dayEnd);
      })
      .map((event) => {
        const startDay = dateOf(event.localStartDateTime);
        const endDay = dateOf(event.localEndDateTime);
        const endsTonight = endDay === day || (endDay === addDays(day, 1) && clockOf(event.localEndDateTime) === '00:00');
        const within = startDay === day && endsTonight;
        const endClock = endDay === day ? clockOf(event.localEndDateTime) : '24:00';
        const wholeDay = Date.parse(event.startDateTime) === dayStart && Date.parse(event.endDateTime) === dayEnd;
        // An all-day event filling the viewer's day needs no times; its mark says it.
        const when =
          event.allDayEvent && wholeDay
            ? ''
            : within
              ? `${clockOf(event.localStartDateTime)}–${endClock}`
              : `${label(startDay)} ${clockOf(event.localStartDateTime)} – ${label(endDay)} ${clockOf(event.localEndDateTime)}`;
        return { event, when };
      });
    return { day, hours, events: dayEvents };
  });
}
