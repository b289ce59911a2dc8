import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** The tenant's email configuration: the sandbox, with its own sender address. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    await f.call('PUT', `${f.paths.admin}/providers/{channel}`, `${f.t.admin}/providers/email`, {
      driver: 'sandbox',
      options: { from: `care-${f.marker}@example.org` },
    });
  },
  params: { channel: () => 'email' },
};
