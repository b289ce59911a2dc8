import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A message from the patient. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    await f.call('POST', `${paths.patient}/chat/inbound`, `${t.base}/patients/${f.ids.patient}/chat/inbound`, {
      message: `Hello ${f.marker}`,
    });
  },
};
