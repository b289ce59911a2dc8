import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A file any area stored (a document's, seeded before). */
export const fixtures: AreaFixtures = {
  params: { fileId: (f) => f.ids.documentFile },
};
