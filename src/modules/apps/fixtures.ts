import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An app of its own: the fuzz may rename, disable or delete it. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const app = await f.call('POST', `${f.paths.admin}/apps`, `${f.t.admin}/apps`, {
      name: `${f.marker}-app`,
      clientType: 'CONFIDENTIAL_SYMMETRIC',
      redirectUris: ['https://app.example/callback'],
      scopes: ['openid', 'fhirUser', 'launch', 'user/*.rs'],
      launchKinds: ['STANDALONE', 'EHR'],
    });
    f.ids.app = app.id;
  },
  params: { appId: (f) => f.ids.app },
};
