import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A contact of the patient, backed by the PDT record. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths } = f;
    const contact = await f.call('POST', `${paths.patient}/contacts`, `${t.base}/patients/${f.ids.patient}/contacts`, {
      name: `Contact ${marker}`,
      relation: 'daughter',
      pdtRecordId: f.ids.pdtRecord,
    });
    f.ids.contact = contact.id;
  },
  params: { contactId: (f) => f.ids.contact },
};
