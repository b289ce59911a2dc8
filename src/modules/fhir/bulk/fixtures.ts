import type { AreaFixtures } from '../../../test/route-fixtures.ts';
import { created } from '../../../test/route-fixtures.ts';
import { RUN_EXPORT } from './job.ts';

/** A completed bulk export of the seeded tenant, and its first file when it has one. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t } = f;
    const base = `${t.base}/fhir/R4`;
    const kickOff = await t.api.request('GET', `${base}/$export`, undefined, {
      prefer: 'respond-async',
      accept: 'application/fhir+json',
    });
    if (kickOff.status !== 202) throw new Error(`FHIR $export kick-off: ${kickOff.status} ${kickOff.text}`);
    const exportId = String(kickOff.headers['content-location']).split('/').at(-1)!;
    await t.app.services.jobs.drain({ tenants: [t.tenant.id], kinds: [RUN_EXPORT] });
    const manifest = created(await t.api.get(`${base}/$export-status/${exportId}`), 'FHIR $export status');
    f.ids.fhirExport = exportId;
    // On PostgreSQL an app with a settle time exports nothing written within it (the records just
    // seeded): no file then, and the file route's checks have none to read.
    const [file] = manifest.output as { url: string }[];
    if (file) f.ids.fhirExportFile = String(file.url).split('/').at(-1)!;
  },
  params: {
    exportId: (f) => f.ids.fhirExport,
    exportFileId: (f) => f.ids.fhirExportFile,
  },
};
