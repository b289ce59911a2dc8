import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** The formation saved again as the draft (its PUT's good body); reads name the current version's first program. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    await f.call('PUT', `${f.paths.instance}/formations/draft`, `${f.t.base}/formations/draft`, f.formation);
    f.names.formationItem = f.formation.programs![0]!.name;
  },
  params: {
    version: () => 'current',
    section: () => 'programs',
    itemName: (f) => f.names.formationItem,
  },
};
