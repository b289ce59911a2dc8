import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** Work hours of the user, and an appointment the user hosts with the patient. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    const workHours = await f.call('POST', `${paths.instance}/calendar/work-hours`, `${t.base}/calendar/work-hours`, {
      psmId: f.ids.user,
      type: 'WORKING_HOURS',
      startDateTime: '2030-01-01T00:00:00.000Z',
      daysInfo: [{ day: 1, startTime: '09:00:00', endTime: '17:00:00' }],
    });
    f.ids.workHours = workHours[0].details[0].workHoursId;
    const event = await f.call('POST', `${paths.instance}/calendar/events`, `${t.base}/calendar/events`, {
      eventTitle: `Visit ${f.marker}`,
      eventType: 'APPOINTMENT',
      startDateTime: '2030-01-07T10:00:00.000Z',
      endDateTime: '2030-01-07T11:00:00.000Z',
      hostId: f.ids.user,
      participants: [{ participantId: f.ids.patient, participantRole: 'patient' }],
    });
    f.ids.calendarEvent = event.id;
  },
  params: {
    workHoursId: (f) => f.ids.workHours,
    id: (f, path) => (path.includes('/calendar/events/') ? f.ids.calendarEvent : undefined),
  },
};
