import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { CsvList, DateTime, InstanceParams, JsonObject, Nullable, TimeZone, Uuid } from '../../wire/schemas.ts';

/** The wire contract of the calendar: 002 "Work hours entry", "Calendar event"; PROD-SHAPES "Calendar event", "Work hours". */

/** A local time: the same instant in the viewer's zone (DECISIONS §1). */
const LocalDateTime = Type.String({ description: 'YYYY-MM-DDTHH:mm:ss.SSS±HH:MM in the zone of the viewer' });
const TimeOfDay = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d$', description: 'HH:MM:SS' });
const OptionalText = (maxLength = 255) => Type.Optional(Nullable(Type.String({ maxLength })));

/** `viewerTimezone`: the zone of `local…` fields; a user's own zone otherwise, or the host's for an API client (000). */
const ViewerTimezone = Type.Optional(
  Type.String({
    format: 'timezone',
    description: "IANA zone of the local fields. Default: a user caller's own zone; for an API client, the host's (or member's)",
  }),
);

// ---- Calendar events ---------------------------------------------------------------------------

export const EventParams = Type.Object({ ...InstanceParams.properties, id: Uuid });

export const Participant = Type.Object({
  id: Uuid,
  participantId: Uuid,
  participantRole: Type.String(),
  participationStatus: Nullable(Type.String()),
  attended: Nullable(Type.Boolean()),
  timezone: Nullable(Type.String()),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  deleted: Type.Boolean(),
  hasAccess: Type.Boolean(),
  hiddenPhi: Type.Boolean(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  gender: Nullable(Type.String()),
  birthDate: Nullable(DateTime),
  enabled: Type.Boolean(),
});

const ParticipantInput = Type.Object({
  participantId: Uuid,
  participantRole: Type.String({
    minLength: 1,
    maxLength: 64,
    description: '`patient` names a patient of the instance; any other role (`psm`) a care-team member',
  }),
  participationStatus: OptionalText(64),
  attended: Type.Optional(Nullable(Type.Boolean())),
});

/** Encounter info of an event built into an encounter (002), with `includeEncounterInfo`. */
export const EncounterInfo = Type.Object({
  encounterId: Uuid,
  dispositionId: Nullable(Type.String()),
  templateName: Nullable(Type.String()),
  templateTitle: Nullable(Type.String()),
  patientId: Uuid,
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  type: Nullable(Type.String()),
  status: Nullable(Type.String()),
  serviceCost: Nullable(Type.Integer()),
  preVisitCost: Nullable(Type.Integer()),
  visitServices: Type.Array(JsonObject),
  location: Nullable(Type.String()),
});

export const CalendarEvent = Type.Object({
  id: Uuid,
  createdBy: Nullable(Type.String()),
  createdAt: DateTime,
  updatedBy: Nullable(Type.String()),
  updatedAt: DateTime,
  externalId: Nullable(Type.String()),
  externalIdUpdatedAt: Nullable(DateTime),
  eventTitle: Nullable(Type.String()),
  eventDescription: Nullable(Type.String()),
  startDateTime: DateTime,
  localStartDateTime: LocalDateTime,
  endDateTime: DateTime,
  localEndDateTime: LocalDateTime,
  allDayEvent: Type.Boolean(),
  duration: Nullable(Type.Integer({ description: 'Seconds' })),
  eventType: Nullable(Type.String()),
  eventStatus: Nullable(Type.String()),
  eventMode: Nullable(Type.String()),
  eventColor: Nullable(Type.String()),
  hostId: Uuid,
  timezone: Nullable(Type.String()),
  additionalInfo: Nullable(JsonObject),
  schedulerAppointmentId: Nullable(Type.Integer()),
  externalCalendarEventId: Nullable(Type.String()),
  externalEventMetadata: Nullable(JsonObject),
  encounterInfo: Type.Optional(Nullable(EncounterInfo)),
  participants: Type.Array(Participant),
});
export type CalendarEventView = Static<typeof CalendarEvent>;

/** Every field a client writes; read-only and unknown keys are ignored (DECISIONS §10). */
const eventFields = {
  eventTitle: OptionalText(),
  eventDescription: OptionalText(10_000),
  startDateTime: DateTime,
  endDateTime: DateTime,
  allDayEvent: Type.Optional(
    Nullable(Type.Boolean({ description: 'Start and end snap to the midnights of their days in the event zone' })),
  ),
  duration: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Seconds; computed from the times when absent' })),
  ),
  eventType: OptionalText(64),
  eventStatus: OptionalText(64),
  eventMode: OptionalText(64),
  eventColor: Type.Optional(
    Nullable(Type.String({ maxLength: 64, description: 'Default: grey for LEAVE, green for anything else' })),
  ),
  hostId: Uuid,
  timezone: Type.Optional(Nullable(TimeZone)),
  additionalInfo: Type.Optional(Nullable(JsonObject)),
  externalId: OptionalText(),
  schedulerAppointmentId: Type.Optional(Nullable(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 }))),
  externalCalendarEventId: OptionalText(),
  externalEventMetadata: Type.Optional(Nullable(JsonObject)),
  participants: Type.Array(ParticipantInput, { maxItems: 100 }),
};

/** POST and PUT: the required fields of 002 (start, end, host, participants). */
export const EventInput = Type.Object(eventFields);
export type EventInputBody = Static<typeof EventInput>;

/** PATCH: any of the fields. */
export const EventPatch = Type.Partial(Type.Object(eventFields));
export type EventPatchBody = Static<typeof EventPatch>;

export const EventQuery = Type.Object({ viewerTimezone: ViewerTimezone });

export const EventListQuery = Type.Object({
  ...PagingQuery,
  from: DateTime,
  to: DateTime,
  participantIds: Type.Optional(
    CsvList(Uuid, { maxItems: 100, description: 'Events these members or patients host or take part in' }),
  ),
  eventType: Type.Optional(Type.String({ maxLength: 64, description: 'APPOINTMENT, LEAVE, ENCOUNTER, ...' })),
  includeEncounterInfo: Type.Boolean({ default: false }),
  includeCancelled: Type.Boolean({ default: false, description: 'Also events whose status is CANCELLED' }),
  excludeAssignedToEncounterEvents: Type.Boolean({ default: false, description: 'Only events not tied to an encounter' }),
  viewerTimezone: ViewerTimezone,
});

// ---- Work hours ------------------------------------------------------------------------------

export const WorkHoursParams = Type.Object({ ...InstanceParams.properties, workHoursId: Uuid });

const DayInfo = Type.Object({
  daysInfoId: Uuid,
  day: Type.Integer(),
  startTime: Type.String(),
  endTime: Type.String(),
});

export const WorkHoursEntry = Type.Object({
  workHoursId: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
  name: Nullable(Type.String()),
  type: Type.String(),
  ruleType: Type.String(),
  startDateTime: DateTime,
  endDateTime: DateTime,
  localStartDateTime: LocalDateTime,
  localEndDateTime: LocalDateTime,
  daysInfo: Type.Array(DayInfo),
  encounters: Type.Optional(Type.Array(Type.String())),
});
export type WorkHoursView = Static<typeof WorkHoursEntry>;

export const GroupedWorkHours = Type.Array(Type.Object({ psmId: Uuid, details: Type.Array(WorkHoursEntry) }));

export const WorkHoursInput = Type.Object({
  psmId: Uuid,
  type: Type.Union([Type.Literal('WORKING_HOURS'), Type.Literal('AVAILABILITY')]),
  ruleType: Type.Optional(
    Type.Union([Type.Literal('DEFAULT'), Type.Literal('OVERRIDE')], {
      description: 'Default DEFAULT. An OVERRIDE replaces the DEFAULT rules of its type on the days it covers',
    }),
  ),
  name: OptionalText(),
  startDateTime: DateTime,
  endDateTime: Type.Optional(Nullable(DateTime)),
  daysInfo: Type.Array(
    Type.Object({
      day: Type.Integer({ minimum: 1, maximum: 7, description: '1 = Monday … 7 = Sunday' }),
      startTime: TimeOfDay,
      endTime: Type.String({
        pattern: '^(([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d|24:00:00)$',
        description: 'HH:MM:SS, after startTime; 24:00:00 or 00:00:00 is the end of the day',
      }),
    }),
    { maxItems: 50 },
  ),
  encounters: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: 100,
      description: 'Encounter template names of the formation; required (at least one) for AVAILABILITY',
    }),
  ),
});
export type WorkHoursInputBody = Static<typeof WorkHoursInput>;

/** At most this many members per request (one query serves them all). */
const MAX_MEMBERS = 100;

export const WorkHoursQuery = Type.Object({
  'psm-ids': Type.Optional(CsvList(Uuid, { maxItems: MAX_MEMBERS, description: 'Care-team member ids (required, or psmIds)' })),
  psmIds: Type.Optional(CsvList(Uuid, { maxItems: MAX_MEMBERS, description: 'Alias of psm-ids' })),
  from: DateTime,
  to: DateTime,
  viewerTimezone: ViewerTimezone,
});

// ---- Schedules --------------------------------------------------------------------------------

export const ScheduleQuery = Type.Object({
  psmIds: CsvList(Uuid, { maxItems: MAX_MEMBERS, description: 'Care-team member ids' }),
  from: DateTime,
  to: DateTime,
  includeCancelled: Type.Boolean({ default: false }),
  viewerTimezone: ViewerTimezone,
});

export const Schedules = Type.Array(
  Type.Object({ psmId: Uuid, workHours: Type.Array(WorkHoursEntry), events: Type.Array(CalendarEvent) }),
);

export const AvailabilityWindow = Type.Object({
  startDateTime: DateTime,
  endDateTime: DateTime,
  localStartDateTime: LocalDateTime,
  localEndDateTime: LocalDateTime,
  encounters: Type.Array(Type.String()),
});

export const AvailableSchedules = Type.Array(
  Type.Object({ psmId: Uuid, workHours: Type.Array(AvailabilityWindow), events: Type.Array(CalendarEvent) }),
);

/** An encounter's appointment (002 `currentScheduledAppointment`): an event body whose participants may be left out (the patient is added). */
export const AppointmentInput = Type.Object({ ...eventFields, participants: Type.Optional(eventFields.participants) });
export type AppointmentInputBody = Static<typeof AppointmentInput>;
