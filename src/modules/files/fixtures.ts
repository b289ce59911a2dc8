import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A file any area stored (a document's, seeded before). */
export const fixtures: AreaFixtures = {
  params: { fileId: (f, path) => (path.startsWith('/{tenantName}/{instanceName}/files/') ? f.ids.documentFile : undefined) },
};
