import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A record of the first assessment. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths, formation } = f;
    const record = await f.call(
      'POST',
      `${paths.patient}/assessment-records`,
      `${t.base}/patients/${f.ids.patient}/assessment-records`,
      {
        assessmentName: formation.assessments![0]!.name,
        folderId: marker,
      },
    );
    f.ids.assessmentRecord = record.id;
  },
  params: { assessmentRecordId: (f) => f.ids.assessmentRecord },
};
