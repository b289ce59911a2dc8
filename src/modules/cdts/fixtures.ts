import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A record of the first MULTI_RECORD CDT, every field filled, then changed through the bulk PATCH. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths, formation } = f;
    const cdt = formation.cdts!.find((type) => type.type === 'MULTI_RECORD')!;
    const values: Record<string, unknown> = {};
    for (const field of cdt.fields ?? []) {
      if (field.type === 'integer') values[field.name] = 120;
      else if (field.type === 'datetime') values[field.name] = '2024-05-06T07:08:09.123Z';
      else if (field.type === 'select') values[field.name] = field.options?.[0];
      else values[field.name] = `${field.name} ${marker}`;
    }
    const url = `${t.base}/patients/${f.ids.patient}/cdts/${cdt.name}`;
    const record = await f.call('POST', `${paths.patient}/cdts/{cdtName}`, url, values);
    await f.call('PATCH', `${paths.patient}/cdts/{cdtName}`, url, { rows: [{ id: record.id, jsonBody: values }] });
    f.ids.cdtRecord = record.id;
    f.names.cdt = cdt.name;
  },
  params: {
    cdtName: (f) => f.names.cdt,
    recordId: (f, path) => (path.includes('/cdts/') ? f.ids.cdtRecord : undefined),
  },
};
