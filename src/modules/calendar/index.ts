/** What other areas may use of the calendar: encounters make, attach and show their appointments; the demo seed fills it. */
export { attachEventIn, cancelEventIn, createCalendarEvent, createEventIn, detachEventIn } from './operations.ts';
export { placeId, recordPlace } from './places.ts';
export { AppointmentInput, type AppointmentInputBody, CalendarEvent, type CalendarEventView } from './schemas.ts';
export { type EventRow, eventsAmong, findEvent, type ParticipantRow, participantsJson } from './store.ts';
export { eventView, eventViews, zoneFor, zonesOf } from './views.ts';
export { createWorkHours } from './work-hours.ts';
