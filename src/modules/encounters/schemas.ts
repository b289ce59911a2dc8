import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { CdtRecord } from '../../records/cdt-view.ts';
import { CsvList, DateTime, InstanceParams, JsonObject, Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';
import { AppointmentInput, CalendarEvent } from '../calendar/index.ts';
import { User } from '../users/index.ts';
import { statuses } from './types.ts';

/** The wire contract of encounters: 002 "Encounter", DECISIONS §7, PROD-SHAPES "Encounter" and "Full encounter". */

export const EncounterParams = Type.Object({ ...PatientParams.properties, encounterId: Uuid });
export const CommentParams = Type.Object({ ...EncounterParams.properties, commentId: Uuid });
export const LinkParams = Type.Object({ ...EncounterParams.properties, linkId: Uuid });
export const UserParams = Type.Object({ ...InstanceParams.properties, userId: Uuid });

const Status = Type.Union(
  statuses.map((status) => Type.Literal(status)),
  { description: 'DRAFT → OPEN → ACTIVE → FINALIZED; any status not final → CANCELLED' },
);
const OptionalText = (maxLength = 255) => Type.Optional(Nullable(Type.String({ maxLength })));

const VisitServiceInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'A visit service of the formation' }),
  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 1' })),
  modifiers: Type.Optional(
    Type.Array(Type.String({ maxLength: 20 }), { maxItems: 10, description: "Among the service's modifiers" }),
  ),
});

const PaymentInfo = Type.Object({
  status: Type.String({ maxLength: 64, description: 'NO_PAYMENT_DUE, ...' }),
  amountDue: Type.Optional(Type.Integer({ minimum: 0, description: 'Integer cents' })),
  lastUpdatedAt: Type.Optional(Type.Integer({ description: 'Epoch milliseconds' })),
});

/** What a client writes; read-only and unknown keys (`patientInfo`, costs, names) are ignored (DECISIONS §10). */
const encounterFields = {
  title: OptionalText(),
  description: OptionalText(10_000),
  instruction: OptionalText(100_000),
  notes: OptionalText(100_000),
  color: OptionalText(64),
  status: Type.Optional(Status),
  templateName: OptionalText(100),
  timezone: Type.Optional(Nullable(Type.String({ format: 'timezone' }))),
  location: OptionalText(2048),
  responsibleParty: Type.Optional(Nullable(Type.Union([Type.Literal('SELF_PAY'), Type.Literal('INSURANCE')]))),
  visitServices: Type.Optional(Type.Array(VisitServiceInput, { maxItems: 50 })),
  encounterPaymentInfo: Type.Optional(Nullable(PaymentInfo)),
};

export const EncounterCreate = Type.Object({
  ...encounterFields,
  calendarEventId: Type.Optional(Nullable(Uuid)),
  currentScheduledAppointment: Type.Optional(Nullable(AppointmentInput)),
});
export type EncounterCreateBody = Static<typeof EncounterCreate>;

export const EncounterPatch = Type.Object(encounterFields);
export type EncounterPatchBody = Static<typeof EncounterPatch>;

/** `status` as one value or a list (`status=DRAFT,OPEN`). */
const StatusFilter = Type.Optional(CsvList(Status, { maxItems: 5, description: 'Any of these statuses' }));
const onlyWithEvent = Type.Boolean({
  default: false,
  description: 'Cairn’s name for 002’s exclusion flag: only encounters built on a calendar event',
});

export const PatientListQuery = Type.Object({ ...PagingQuery, status: StatusFilter, excludeWithoutCalendarEvent: onlyWithEvent });
export const UserListQuery = Type.Object({
  ...PagingQuery,
  status: StatusFilter,
  withCareTeam: Type.Boolean({
    default: true,
    description: 'Care-team only: encounters of the patients whose care team holds the user; false: those the user hosts',
  }),
});
export const InstanceListQuery = Type.Object({
  ...PagingQuery,
  status: StatusFilter,
  withCareTeam: Type.Boolean({
    default: true,
    description: "Only encounters of patients in the calling user's care team; an API client passes false (000)",
  }),
});
export const FullListQuery = Type.Object({
  ...PagingQuery,
  status: StatusFilter,
  activeUserId: Type.Optional(Uuid),
  excludeWithoutCalendarEvent: onlyWithEvent,
});
export const PatientFullListQuery = Type.Object({
  ...PagingQuery,
  status: StatusFilter,
  direction: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC'), Type.Literal('asc'), Type.Literal('desc')])),
  excludeWithoutCalendarEvent: onlyWithEvent,
});
export const UserFullListQuery = Type.Object({
  ...PagingQuery,
  status: StatusFilter,
  from: Type.Optional(DateTime),
  to: Type.Optional(DateTime),
  withCareTeam: Type.Boolean({
    default: false,
    description: 'Care-team only: encounters of the patients whose care team holds the user; false: those the user hosts',
  }),
  excludeWithoutCalendarEvent: onlyWithEvent,
});

export const EncounterComment = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
  encounterId: Uuid,
  text: Type.String(),
});
export type EncounterCommentView = Static<typeof EncounterComment>;
export const CommentInput = Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }) });

export const LinkCreate = Type.Object({ assessmentName: Type.String({ minLength: 1, maxLength: 100 }) });
export const LinkPatch = Type.Object({
  assessmentRecordId: Nullable(Uuid),
});

/** An encounter in a list or read: a CDT record; in user and instance lists, without its type ids (PROD-SHAPES). */
export const EncounterRecord = Type.Object({
  id: Uuid,
  patientId: Uuid,
  cdtId: Nullable(Uuid),
  version: Nullable(Type.Integer()),
  jsonBody: JsonObject,
  cdtName: Nullable(Type.String()),
});

export const FullEncounter = Type.Object({
  encounter: EncounterRecord,
  disposition: Nullable(CdtRecord),
  calendarEvent: Nullable(CalendarEvent),
  userRelatedToCalendarEvent: Nullable(User),
  assessmentLinks: Type.Array(CdtRecord),
  comments: Type.Array(EncounterComment),
});

export const DispositionPatch = JsonObject;
