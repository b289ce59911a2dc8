import type { ExportSource } from '../../http/export.ts';
import { CalendarEvent } from './schemas.ts';
import { eventPatients, eventViews } from './views.ts';

/**
 * Calendar events in the bulk export: each as GET /calendar/events/{id} shows it (participants,
 * encounter info, local times in the host's zone as for any API client), loaded for the whole page.
 */
export const calendarEventExport: ExportSource = {
  permission: 'CALENDAR_EVENT_EXPORT',
  summary: 'calendar events',
  item: CalendarEvent,
  table: 'calendar_events',
  patientsOf: { items: (items) => items.flatMap(eventPatients) },
  view: (ctx, rows) => eventViews(ctx, rows, { includeEncounterInfo: true }),
};
