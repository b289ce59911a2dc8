import { unwrap } from '@cairn/client';
import { useMemo, useState } from 'preact/hooks';
import { fromDataAndMeta, useAction, useLoad, usePaged } from '../hooks.ts';
import type { Session } from '../session.ts';
import { busyIf, Empty, ErrorMessage, Field, type PageProps, SearchBar, Section } from '../ui.tsx';
import './calendar.css';
import { addDays, browserZone, dayLabel, dayOf, instantAt, isDay, isZone, knownZones, mondayOf } from './calendar/time.ts';
import { type EventItem, hoursOf, type Rule, weekOf } from './calendar/week.ts';

/** Users listed in the member picker at once; a search narrows them. */
const MEMBERS = 100;
/** Events of a week read in one call; a week with more says so. */
const EVENTS = 1000;

interface Member {
  id: string;
  username: string;
  firstName?: string;
  lastName?: string;
  timezone?: string;
}

const nameOf = (member: Member) => {
  const name = [member.firstName, member.lastName].filter(Boolean).join(' ');
  return name ? `${name} (${member.username})` : member.username;
};

/**
 * One member's week (Monday to Sunday of the viewer's zone): their events, read in one call for the
 * week with `viewerTimezone`, and their work hours (wall-clock hours of the member's own zone) shown
 * in the viewer's zone. The week is the page: `calendar/<YYYY-MM-DD>` opens the week of that day.
 */
export function Calendar({ session, subpath, go }: PageProps) {
  const [zone, setZone] = useState(browserZone);
  const [member, setMember] = useState<Member>();
  const asked = subpath.split('/')[0] ?? '';
  const monday = mondayOf(isDay(asked) ? asked : dayOf(Date.now(), zone));
  const [version, setVersion] = useState(0);

  return (
    <>
      <h1>Calendar</h1>
      <Section title="Member and time zone">
        <div class="grid">
          <MemberPicker session={session} member={member} onMember={setMember} />
          <ZonePicker zone={zone} onZone={setZone} />
        </div>
      </Section>
      <nav aria-label="Weeks" class="pager">
        <button type="button" class="secondary" onClick={() => go(`calendar/${addDays(monday, -7)}`)}>
          Previous week
        </button>
        <button type="button" class="secondary outline" onClick={() => go(`calendar/${mondayOf(dayOf(Date.now(), zone))}`)}>
          This week
        </button>
        <button type="button" class="secondary" onClick={() => go(`calendar/${addDays(monday, 7)}`)}>
          Next week
        </button>
      </nav>
      {member ? (
        <>
          <Week session={session} member={member} zone={zone} monday={monday} version={version} />
          <AddEvent session={session} member={member} zone={zone} onAdded={() => setVersion((v) => v + 1)} />
        </>
      ) : (
        <p data-testid="empty">Choose a member to see their week.</p>
      )}
    </>
  );
}

function MemberPicker({
  session,
  member,
  onMember,
}: {
  session: Session;
  member: Member | undefined;
  onMember: (member: Member | undefined) => void;
}) {
  const { client, tenantName } = session;
  const [search, setSearch] = useState('');
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<Member>(
        await unwrap(
          client.GET('/{tenantName}/admin/users', {
            params: { path: { tenantName }, query: { page, size: MEMBERS, ...(search ? { search } : {}) } },
          }),
        ),
      ),
    [client, tenantName, search],
  );
  // The chosen member stays listed while a search shows others.
  const options = member && !list.rows.some((row) => row.id === member.id) ? [member, ...list.rows] : list.rows;
  const more = list.meta && list.meta.totalElements > list.rows.length;

  return (
    <div>
      <SearchBar
        id="member-search"
        label="Find a member (username, email or name contains)"
        onSearch={(text) => {
          list.setPage(0);
          setSearch(text);
        }}
      />
      <label for="calendar-member">Member</label>
      <select
        id="calendar-member"
        value={member?.id ?? ''}
        aria-busy={busyIf(list.loading)}
        aria-describedby="calendar-member-note"
        onChange={(event) => {
          const id = (event.target as HTMLSelectElement).value;
          onMember(options.find((option) => option.id === id));
        }}
      >
        <option value="">Choose a member</option>
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {nameOf(option)}
          </option>
        ))}
      </select>
      <small id="calendar-member-note">
        {more
          ? `The first ${list.rows.length} of ${list.meta?.totalElements} users: search to narrow them.`
          : `${list.rows.length} ${list.rows.length === 1 ? 'user' : 'users'} listed.`}
      </small>
      <ErrorMessage error={list.error} />
    </div>
  );
}

function ZonePicker({ zone, onZone }: { zone: string; onZone: (zone: string) => void }) {
  const zones = useMemo(knownZones, []);
  return (
    <div>
      <label for="calendar-zone">Viewer's time zone</label>
      <select id="calendar-zone" value={zone} onChange={(event) => onZone((event.target as HTMLSelectElement).value)}>
        {zones.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <small>Events and work hours are shown in this zone. Default: this browser's.</small>
    </div>
  );
}

interface Loaded {
  key: string;
  events: EventItem[];
  total: number;
  rules: Rule[];
}

function Week({
  session,
  member,
  zone,
  monday,
  version,
}: {
  session: Session;
  member: Member;
  zone: string;
  monday: string;
  version: number;
}) {
  const { client, tenantName, instanceName } = session;
  const from = instantAt(monday, '00:00:00', zone);
  const to = instantAt(addDays(monday, 7), '00:00:00', zone);
  const key = `${member.id}/${zone}/${monday}/${version}`;
  const {
    value: loaded,
    loading,
    error,
  } = useLoad(async (): Promise<Loaded> => {
    const path = { tenantName, instanceName };
    const range = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), viewerTimezone: zone };
    const [events, hours] = await Promise.all([
      unwrap(
        client.GET('/{tenantName}/{instanceName}/calendar/events', {
          params: { path, query: { ...range, participantIds: [member.id], size: EVENTS } },
        }),
      ),
      unwrap(
        client.GET('/{tenantName}/{instanceName}/calendar/work-hours', {
          params: { path, query: { ...range, 'psm-ids': [member.id] } },
        }),
      ),
    ]);
    return {
      key,
      events: events.content as EventItem[],
      total: events.totalElements,
      rules: hours.flatMap((entry) => entry.details) as Rule[],
    };
  }, [client, tenantName, instanceName, key]);

  const memberZone = member.timezone && isZone(member.timezone) ? member.timezone : 'UTC';
  const days = useMemo(
    () =>
      loaded ? weekOf(monday, zone, loaded.events, hoursOf(loaded.rules, memberZone, from, to), (day) => dayLabel(day)) : [],
    [loaded, monday, zone, memberZone],
  );
  const title = `Week of ${dayLabel(monday, true)} to ${dayLabel(addDays(monday, 6), true)}`;
  const stale = loaded !== undefined && loaded.key !== key;

  return (
    <section aria-labelledby="week-title" aria-busy={busyIf(loading)} data-week={monday} data-zone={zone}>
      <h2 id="week-title" aria-live="polite">
        {title}
      </h2>
      <p class="week-note">
        {nameOf(member)}, in {zone}. Work hours are set in the member's zone ({memberZone}).
      </p>
      <ErrorMessage error={error} />
      {loaded && loaded.total > loaded.events.length && (
        <p>
          The first {loaded.events.length} of {loaded.total} events of this week are shown.
        </p>
      )}
      <ol class={`week${stale ? ' stale' : ''}`}>
        {days.map(({ day, hours, events }) => (
          <li key={day} class="day" data-day={day} aria-labelledby={`day-${day}`}>
            <h3 id={`day-${day}`}>{dayLabel(day)}</h3>
            {hours.length > 0 && (
              <ul class="hours" aria-label={`Work hours on ${dayLabel(day)}`}>
                {hours.map((span) => (
                  <li key={`${span.type}/${span.from}`} data-work-hours={`${span.from}-${span.to}`}>
                    {span.type === 'AVAILABILITY' ? 'Available' : 'Works'} {span.from}–{span.to}
                  </li>
                ))}
              </ul>
            )}
            <ul class="events" aria-label={`Events on ${dayLabel(day)}`}>
              {events.map(({ event, when }) => (
                <li
                  key={event.id}
                  data-event={event.eventTitle ?? event.id}
                  style={{ borderLeftColor: event.eventColor ?? undefined }}
                >
                  <strong>{event.eventTitle || '(untitled)'}</strong>
                  {when && <span class="when">{when}</span>}
                  {event.allDayEvent && <mark>All day</mark>}
                  {event.eventType && <small>{event.eventType}</small>}
                </li>
              ))}
            </ul>
            {events.length === 0 && <p class="quiet">No events.</p>}
          </li>
        ))}
      </ol>
      <Empty when={!loading && !error && loaded !== undefined && loaded.events.length === 0}>No events this week.</Empty>
    </section>
  );
}

/** `YYYY-MM-DDTHH:MM` of the viewer's zone as an instant; anything else is sent as it is, for the API to judge. */
function instantOf(local: string, zone: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)$/.exec(local);
  return match?.[1] && match[2] && isDay(match[1]) ? new Date(instantAt(match[1], match[2], zone)).toISOString() : local;
}

function AddEvent({ session, member, zone, onAdded }: { session: Session; member: Member; zone: string; onAdded: () => void }) {
  const { client, tenantName, instanceName } = session;
  const [title, setTitle] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const action = useAction();
  const { fields } = action;

  const submit = (event: Event) => {
    event.preventDefault();
    return action.run('add', async () => {
      const made = await unwrap(
        client.POST('/{tenantName}/{instanceName}/calendar/events', {
          params: { path: { tenantName, instanceName } },
          body: {
            eventTitle: title || null,
            startDateTime: instantOf(start, zone),
            endDateTime: instantOf(end, zone),
            hostId: member.id,
            participants: [],
          },
        }),
      );
      setTitle('');
      setStart('');
      setEnd('');
      onAdded();
      return `${made.eventTitle ?? 'The event'} was added`;
    });
  };

  return (
    <Section title="Add an event">
      <form onSubmit={submit} aria-label="Add an event">
        <p>
          Hosted by {nameOf(member)}; times are in {zone}.
        </p>
        <div class="grid">
          <Field label="Title" name="eventTitle" value={title} onInput={setTitle} error={fields.eventTitle} />
          <Field
            label="Starts"
            name="startDateTime"
            type="datetime-local"
            value={start}
            onInput={setStart}
            error={fields.startDateTime}
          />
          <Field label="Ends" name="endDateTime" type="datetime-local" value={end} onInput={setEnd} error={fields.endDateTime} />
        </div>
        <ErrorMessage error={action.error} />
        <p aria-live="polite">{action.done}</p>
        <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
          Add event
        </button>
      </form>
    </Section>
  );
}
