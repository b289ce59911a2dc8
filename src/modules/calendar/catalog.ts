import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the calendar area adds to the shared catalogs, beside its routes. */

export const calendarPermissions = {
  CALENDAR_READ: "Read calendar events, care-team members' work hours and their schedules",
  CALENDAR_UPDATE: 'Create, change and delete calendar events and work hours',
  CALENDAR_EVENT_EXPORT: 'Export calendar events (API clients, /export/CALENDAR_EVENT)',
} as const;

export const calendarErrors = {
  CALENDAR_EVENT_NOT_FOUND: { status: 404, componentType: 'CALENDAR', message: 'Calendar event not found' },
  WORK_HOURS_NOT_FOUND: { status: 404, componentType: 'CALENDAR', message: 'Work hours not found' },
  LOCATION_NOT_FOUND: { status: 404, componentType: 'CALENDAR', message: 'No appointment of this instance is at that place' },
} as const;

/** The events its records are (DECISIONS §9). */
export const calendarEvents = {
  CALENDAR: {
    description: 'Calendar events (appointments, leave, encounter visits)',
    subtypes: ['CALENDAR_CREATED', 'CALENDAR_UPDATED', 'CALENDAR_DELETED'],
  },
  WORK_HOURS: {
    description: "Care-team members' working hours and availability rules",
    subtypes: ['WORK_HOURS_CREATED', 'WORK_HOURS_UPDATED'],
  },
} as const satisfies EventCatalog;

export const calendarAuditActions = {
  CALENDAR_CREATED: { description: 'A calendar event was created', events: ['CALENDAR_CREATED'] },
  CALENDAR_UPDATED: {
    description: 'A calendar event was changed (or cancelled by a delete, when past)',
    events: ['CALENDAR_UPDATED'],
  },
  CALENDAR_DELETED: { description: 'A future calendar event was deleted', events: ['CALENDAR_DELETED'] },
  WORK_HOURS_CREATED: { description: 'A work hours or availability rule was added', events: ['WORK_HOURS_CREATED'] },
  WORK_HOURS_UPDATED: { description: 'A work hours or availability rule was changed', events: ['WORK_HOURS_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof calendarPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof calendarErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof calendarAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof calendarEvents> {}
}
