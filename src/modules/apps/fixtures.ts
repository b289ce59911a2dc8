import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An app and an identity provider of its own: the fuzz may rename, disable or delete them. */
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
    // Never discovered by the checks: only a sign-in started on an authorization's page reaches the issuer.
    const provider = await f.call('POST', `${f.paths.admin}/identity-providers`, `${f.t.admin}/identity-providers`, {
      name: `${f.marker}-idp`,
      issuer: 'https://idp.example',
      clientId: 'cairn',
      clientSecret: 'idp-secret',
      matchClaim: 'email',
    });
    f.ids.identityProvider = provider.id;
  },
  params: { appId: (f) => f.ids.app, providerId: (f) => f.ids.identityProvider },
};
