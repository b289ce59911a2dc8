import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** The admin client's own token route: its key in the path, its secret in the body. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    f.bodies[`POST ${f.paths.admin}/api_clients/{clientName}`] = { secret: f.t.adminClient.secret };
    f.names.clientKey = f.t.adminClient.clientKey;
  },
  params: { clientName: (f) => f.names.clientKey },
};
