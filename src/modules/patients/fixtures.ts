import { randomUUID } from 'node:crypto';
import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A patient with the user as its point of contact, found by id and by its external keys. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths } = f;
    const externalId = `${marker}-eid`;
    const mrn = `${marker}-mrn`;
    const externalGuid = randomUUID();
    const patient = await f.call('POST', `${paths.instance}/patients`, `${t.base}/patients`, {
      firstName: `Pat ${marker}`,
      lastName: `Ient ${marker}`,
      birthDate: '1970-01-02',
      externalId,
      mrn,
      externalGuid,
      careTeam: [{ id: f.ids.user, pointOfContact: true }],
    });
    await f.call('PATCH', `${paths.instance}/patients`, `${t.base}/patients`, { ids: [patient.id], timezone: 'US/Eastern' });
    f.ids.patient = patient.id;
    f.alternateKeys.push(externalId, mrn, externalGuid);
  },
  params: { patientId: (f) => f.ids.patient },
};
