import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An encounter of the patient with its appointment (so a disposition and assessment links), and a comment. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths, formation } = f;
    const template = formation.encounterTemplates?.find((candidate) => (candidate.assessmentNames ?? []).length > 0);
    const encounter = await f.call('POST', `${paths.patient}/encounters`, `${t.base}/patients/${f.ids.patient}/encounters`, {
      title: `Visit ${f.marker}`,
      templateName: template?.name,
      currentScheduledAppointment: {
        startDateTime: '2030-02-04T10:00:00.000Z',
        endDateTime: '2030-02-04T10:30:00.000Z',
        hostId: f.ids.user,
        eventMode: 'IN-PERSON',
      },
    });
    f.ids.encounter = encounter.id;
    const base = `${t.base}/patients/${f.ids.patient}/encounters/${encounter.id}`;
    const comment = await f.call('POST', `${paths.patient}/encounters/{encounterId}/comments`, `${base}/comments`, {
      text: `Note ${f.marker}`,
    });
    f.ids.encounterComment = comment.id;
    const link = await f.call('POST', `${paths.patient}/encounters/{encounterId}/assessments`, `${base}/assessments`, {
      assessmentName: template?.assessmentNames?.[0],
    });
    f.ids.encounterLink = link.id;
  },
  params: {
    encounterId: (f) => f.ids.encounter,
    commentId: (f) => f.ids.encounterComment,
    linkId: (f) => f.ids.encounterLink,
  },
};
