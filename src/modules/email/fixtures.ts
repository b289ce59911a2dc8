import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An email draft to the patient. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    const draft = await f.call('POST', `${paths.patient}/email-drafts`, `${t.base}/patients/${f.ids.patient}/email-drafts`, {
      subject: `Follow-up ${f.marker}`,
      body: 'See you next week',
    });
    f.ids.emailDraft = draft.id;
  },
  params: { draftId: (f) => f.ids.emailDraft },
};
