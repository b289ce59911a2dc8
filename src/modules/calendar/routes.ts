import { patientsIn } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody, validationError } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams } from '../../wire/schemas.ts';
import {
  createCalendarEvent,
  deleteCalendarEvent,
  getCalendarEvent,
  listCalendarEvents,
  MAX_RANGE_DAYS,
  rangeOf,
  updateCalendarEvent,
} from './operations.ts';
import { availableSchedules, memberSchedules } from './schedules.ts';
import {
  AvailableSchedules,
  CalendarEvent,
  EventInput,
  EventListQuery,
  EventParams,
  EventPatch,
  EventQuery,
  GroupedWorkHours,
  ScheduleQuery,
  Schedules,
  WorkHoursInput,
  WorkHoursParams,
  WorkHoursQuery,
} from './schemas.ts';
import { eventPatients } from './views.ts';
import { createWorkHours, getWorkHours, updateWorkHours } from './work-hours.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Calendar'];
const base = '/:tenantName/:instanceName/calendar';
const zoneNote =
  'Local fields are in `viewerTimezone` when given; otherwise in a user caller’s own zone, and for an API client in the host’s (000).';
const rangeNote = `\`from\` and \`to\` are required; \`to\` is after \`from\` and at most ${MAX_RANGE_DAYS} days later (400 otherwise).`;
/** The only sort: by start (an index serves it), then id. */
const sortable = { startDateTime: 'e.start_at' };

const onePage = patientsIn('CALENDAR_EVENT', (body) => ((body as { content?: unknown[] }).content ?? []).flatMap(eventPatients));
const oneEvent = patientsIn('CALENDAR_EVENT', eventPatients);
const bySchedule = patientsIn('CALENDAR_EVENT', (body) =>
  (Array.isArray(body) ? (body as { events?: unknown[] }[]) : []).flatMap((schedule) =>
    (schedule.events ?? []).flatMap(eventPatients),
  ),
);

const calendarRoutes: AreaPlugin = async (app) => {
  app.get(
    `${base}/events`,
    {
      config: needs('CALENDAR_READ', { discloses: onePage }),
      schema: {
        tags,
        summary: 'Calendar events overlapping a range (page object)',
        description: `${rangeNote} \`participantIds\`: events these members host or these members or patients take part in. Cancelled events are left out unless \`includeCancelled\`; \`excludeAssignedToEncounterEvents\` leaves out events an encounter is built on. Sort: \`startDateTime\` (default, ascending). ${zoneNote}`,
        params: InstanceParams,
        querystring: EventListQuery,
        response: { 200: PageObject(CalendarEvent), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...query } = request.query;
      const keys = parseSort(sort, sortable);
      const { content, total } = await listCalendarEvents(
        contextOf(request),
        { ...query, ...rangeOf(query) },
        { page, size },
        keys[0]?.direction ?? 'asc',
      );
      return pageObject(content, total, { page, size }, keys.length > 0);
    },
  );

  app.post(
    `${base}/events`,
    {
      config: needs('CALENDAR_UPDATE', { discloses: oneEvent }),
      schema: {
        tags,
        summary: 'Create a calendar event (201)',
        description: `Required: \`startDateTime\`, \`endDateTime\`, \`hostId\` (a user of the tenant) and \`participants\` (each a patient of the instance with role \`patient\`, or a user). \`eventColor\` defaults to grey for LEAVE and green otherwise (002: an event without a colour is invisible). \`duration\` (seconds) defaults to the length. Overlapping events of one host are accepted. ${zoneNote}`,
        params: InstanceParams,
        body: EventInput,
        response: { 201: CalendarEvent, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await createCalendarEvent(contextOf(request), request.body)),
  );

  app.get(
    `${base}/events/:id`,
    {
      config: needs('CALENDAR_READ', { discloses: oneEvent }),
      schema: {
        tags,
        summary: 'Read a calendar event (with its encounter info)',
        description: zoneNote,
        params: EventParams,
        querystring: EventQuery,
        response: { 200: CalendarEvent, ...errors },
      },
    },
    async (request) => getCalendarEvent(contextOf(request), request.params.id, request.query.viewerTimezone),
  );

  app.put(
    `${base}/events/:id`,
    {
      config: needs('CALENDAR_UPDATE', { discloses: oneEvent }),
      schema: {
        tags,
        summary: 'Replace a calendar event',
        description: 'The body is the whole event, as on create: optional fields it leaves out are cleared.',
        params: EventParams,
        body: EventInput,
        response: { 200: CalendarEvent, ...errors },
      },
    },
    async (request) => updateCalendarEvent(contextOf(request), request.params.id, request.body, true),
  );

  app.patch(
    `${base}/events/:id`,
    {
      config: needs('CALENDAR_UPDATE', { discloses: oneEvent }),
      schema: {
        tags,
        summary: 'Change the fields given of a calendar event',
        description: '`participants`, when given, replaces the list.',
        params: EventParams,
        body: EventPatch,
        response: { 200: CalendarEvent, ...errors },
      },
    },
    async (request) => updateCalendarEvent(contextOf(request), request.params.id, request.body, false),
  );

  app.delete(
    `${base}/events/:id`,
    {
      config: needs('CALENDAR_UPDATE'),
      schema: {
        tags,
        summary: 'Delete a calendar event (204)',
        description:
          'An event that has begun stays readable with `eventStatus` CANCELLED; one still to come is removed (404 after). DECISIONS §7.',
        params: EventParams,
        response: { 204: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      await deleteCalendarEvent(contextOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    `${base}/work-hours`,
    {
      config: needs('CALENDAR_READ'),
      schema: {
        tags,
        summary: "Members' work hours and availability rules overlapping a range, grouped per member",
        description: `\`psm-ids\` (or \`psmIds\`) is required: one entry per member asked, in that order, empty ones included. ${rangeNote} Local fields: \`viewerTimezone\`, else a user caller's zone, else the member's.`,
        params: InstanceParams,
        querystring: WorkHoursQuery,
        response: { 200: GroupedWorkHours, ...errors },
      },
    },
    async (request) => {
      const { 'psm-ids': dashed, psmIds, viewerTimezone } = request.query;
      const members = [...(dashed ?? []), ...(psmIds ?? [])];
      if (members.length === 0) throw validationError([{ path: 'querystring.psm-ids', message: 'is required (or psmIds)' }]);
      return getWorkHours(contextOf(request), members, rangeOf(request.query), viewerTimezone);
    },
  );

  app.post(
    `${base}/work-hours`,
    {
      config: needs('CALENDAR_UPDATE'),
      schema: {
        tags,
        summary: 'Add a work hours or availability rule (201, grouped under its member)',
        description:
          '`daysInfo`: weekday hours in the member’s own zone (day 1 = Monday). No `endDateTime`: open-ended (ends 50 years on). AVAILABILITY names encounter templates of the formation in `encounters`. An OVERRIDE rule replaces the DEFAULT rules of its type on the days it covers.',
        params: InstanceParams,
        body: WorkHoursInput,
        response: { 201: GroupedWorkHours, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await createWorkHours(contextOf(request), request.body)),
  );

  app.put(
    `${base}/work-hours/:workHoursId`,
    {
      config: needs('CALENDAR_UPDATE'),
      schema: {
        tags,
        summary: 'Replace a work hours or availability rule',
        description: 'Same body as POST. A day entry whose day and times are unchanged keeps its `daysInfoId`.',
        params: WorkHoursParams,
        body: WorkHoursInput,
        response: { 200: GroupedWorkHours, ...errors },
      },
    },
    async (request) => updateWorkHours(contextOf(request), request.params.workHoursId, request.body),
  );

  const schedule = (path: string, summary: string, description: string, full: boolean) =>
    app.get(
      `${base}/${path}`,
      {
        config: needs('CALENDAR_READ', { discloses: bySchedule }),
        schema: {
          tags,
          summary,
          description: `${description} ${rangeNote} One entry per member asked, empty ones included. ${zoneNote}`,
          params: InstanceParams,
          querystring: ScheduleQuery,
          response: { 200: Schedules, ...errors },
        },
      },
      async (request) => {
        const { psmIds, includeCancelled, viewerTimezone } = request.query;
        return memberSchedules(contextOf(request), psmIds, rangeOf(request.query), { includeCancelled, viewerTimezone }, full);
      },
    );
  schedule('psm-schedules', "Members' schedules: work hours and events in a range", 'DECISIONS §7.', false);
  schedule('full-psm-schedules', "Members' schedules, each event with its encounter info", 'DECISIONS §7.', true);

  app.get(
    `${base}/available-psm-schedules`,
    {
      config: needs('CALENDAR_READ', { discloses: bySchedule }),
      schema: {
        tags,
        summary: "Members' free AVAILABILITY windows in a range",
        description: `\`workHours\` holds each member's AVAILABILITY windows (\`{startDateTime, endDateTime, local…, encounters}\`) with their booked (not cancelled) events taken out; \`events\` the events in range. ${rangeNote} ${zoneNote}`,
        params: InstanceParams,
        querystring: ScheduleQuery,
        response: { 200: AvailableSchedules, ...errors },
      },
    },
    async (request) => {
      const { psmIds, includeCancelled, viewerTimezone } = request.query;
      return availableSchedules(contextOf(request), psmIds, rangeOf(request.query), { includeCancelled, viewerTimezone });
    },
  );
};

export default calendarRoutes;
