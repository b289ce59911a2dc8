import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A client of its own, holding the harness's `nothing` role: the fuzz may disable, rename or rotate it (never the admin client the checks call with). */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const client = await f.call('POST', `${f.paths.admin}/api-clients`, `${f.t.admin}/api-clients`, {
      name: `${f.marker}-client`,
      roles: [{ permissionName: 'nothing', instanceName: f.t.instance.name }],
    });
    f.ids.managedClient = client.id;
  },
  params: { clientId: (f) => f.ids.managedClient },
};
