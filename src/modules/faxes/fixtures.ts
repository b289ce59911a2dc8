import { multipart, sampleFile } from '../../test/files.ts';
import type { AreaFixtures } from '../../test/route-fixtures.ts';
import { created } from '../../test/route-fixtures.ts';

/** A fax draft to a number, with a file. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    const fax = await f.call('POST', `${paths.instance}/faxes`, `${t.base}/faxes`, {
      subject: `Referral ${f.marker}`,
      receiver: { type: 'FAX_NUMBER', faxNumber: '+14155550160' },
    });
    f.ids.fax = fax.id;
    const form = multipart([{ name: 'referral.pdf', content: sampleFile('pdf') }]);
    const withFile = created(
      await t.api.request('POST', `${t.base}/faxes/${fax.id}/files`, form.body, form.headers),
      'fax files',
    );
    f.ids.faxFile = withFile.files[0].id;
  },
  params: {
    faxId: (f) => f.ids.fax,
    fileId: (f, path) => (path.startsWith('/{tenantName}/{instanceName}/faxes/') ? f.ids.faxFile : undefined),
  },
};
