import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An email draft to the patient, and an email sent from another draft. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    const drafts = `${t.base}/patients/${f.ids.patient}/email-drafts`;
    const draft = await f.call('POST', `${paths.patient}/email-drafts`, drafts, {
      subject: `Follow-up ${f.marker}`,
      body: 'See you next week',
      patientEmail: `patient-${f.marker}@example.org`,
    });
    f.ids.emailDraft = draft.id;
    const sent = await f.call('POST', `${paths.patient}/email-drafts`, drafts, {
      subject: `Results ${f.marker}`,
      body: 'All clear',
      patientEmail: `patient-${f.marker}@example.org`,
    });
    const email = await f.call('POST', `${paths.patient}/email-drafts/{draftId}/send`, `${drafts}/${sent.id}/send`, {});
    f.ids.email = email.id;
  },
  params: { draftId: (f) => f.ids.emailDraft, emailId: (f) => f.ids.email },
};
