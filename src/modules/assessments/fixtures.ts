import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A record of the first assessment, and a patient-facing one. */
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
    // And one the patient fills in (patient-facing), which the export keeps apart (PFA).
    const pfa = await f.call(
      'POST',
      `${paths.patient}/assessment-records`,
      `${t.base}/patients/${f.ids.patient}/assessment-records`,
      { assessmentName: formation.assessments![0]!.name, folderId: marker, pfa: true },
    );
    f.ids.pfaAssessmentRecord = pfa.id;
  },
  params: { assessmentRecordId: (f) => f.ids.assessmentRecord },
};
