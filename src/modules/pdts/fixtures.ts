import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A record of the first contactable PDT, every field filled. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths, formation } = f;
    const pdt = formation.pdts!.find((type) => type.contactable)!;
    const values: Record<string, unknown> = {};
    for (const field of pdt.fields ?? []) {
      if (field.type === 'email') values[field.name] = `${marker}.pdt@example.org`;
      else if (field.type === 'phone') values[field.name] = '+14155550123';
      else values[field.name] = `${field.name} ${marker}`;
    }
    const record = await f.call('POST', `${paths.instance}/pdts/{pdtName}`, `${t.base}/pdts/${pdt.name}`, values);
    f.ids.pdtRecord = record.id;
    f.names.pdt = pdt.name;
  },
  params: {
    pdtName: (f) => f.names.pdt,
    pdtId: (f) => f.ids.pdtRecord,
  },
};
