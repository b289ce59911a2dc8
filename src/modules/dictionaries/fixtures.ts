import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A value of the first dictionary that is not internal. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths, formation } = f;
    const dictionary = formation.dictionaries!.find((candidate) => !candidate.internal)!;
    const values = Object.fromEntries((dictionary.fields ?? []).map((field) => [field.name, `${field.name}-${marker}`]));
    const body = await f.call(
      'POST',
      `${paths.instance}/dictionaries/{dictionaryName}`,
      `${t.base}/dictionaries/${dictionary.name}`,
      {
        records: [{ values }],
      },
    );
    f.bodies[`PUT ${paths.instance}/dictionaries/{dictionaryName}/{recordId}`] = { values };
    f.ids.dictionaryRecord = body.records[0].id;
    f.names.dictionary = dictionary.name;
  },
  params: {
    dictionaryName: (f) => f.names.dictionary,
    recordId: (f, path) => (path.includes('/dictionaries/') ? f.ids.dictionaryRecord : undefined),
  },
};
