import { randomUUID } from 'node:crypto';
import { multipart, sampleFile } from '../../test/files.ts';
import { type AreaFixtures, created } from '../../test/route-fixtures.ts';

/** A document summary with a file and a document type record. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths } = f;
    const documentType = 'doc-type-others';
    const base = `${t.base}/patients/${f.ids.patient}/document-summary`;
    const summary = await f.call('POST', `${paths.patient}/document-summary`, base, {
      type: documentType,
      sourceId: randomUUID(),
      sourceType: marker,
      sourceName: marker,
    });
    const summaryUrl = `${base}/${summary.id}`;
    const upload = multipart([{ name: `${marker}.png`, content: sampleFile('png') }]);
    const [file] = created(await t.api.request('POST', `${summaryUrl}/files`, upload.body, upload.headers), 'document file');
    const typeRecord = await f.call(
      'POST',
      `${paths.patient}/document-summary/{summaryId}/{docType}`,
      `${summaryUrl}/${documentType}`,
      {},
    );
    await f.call('PUT', `${paths.patient}/document-summary/{summaryId}`, summaryUrl, { type: documentType });
    Object.assign(f.ids, { documentSummary: summary.id, documentFile: file.id, documentTypeRecord: typeRecord.id });
    f.names.documentType = documentType;
  },
  params: {
    summaryId: (f) => f.ids.documentSummary,
    fileId: (f, path) => (path.includes('/document-summary/') ? f.ids.documentFile : undefined),
    docType: (f) => f.names.documentType,
  },
};
