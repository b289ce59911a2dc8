import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** The patient enrolled in the first program, then moved to its second phase. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths, formation } = f;
    const program = formation.programs![0]!;
    const patientUrl = `${t.base}/patients/${f.ids.patient}`;
    const enrollment = await f.call(
      'PATCH',
      `${paths.patient}/programs/{programName}`,
      `${patientUrl}/programs/${program.name}`,
      {
        status: 'IN_PROGRESS',
      },
    );
    await f.call('PATCH', `${paths.patient}/programs/{programName}/phases`, `${patientUrl}/programs/${program.name}/phases`, {
      phaseName: program.phases[1]!.name,
    });
    f.ids.enrollment = enrollment.id;
    f.names.program = program.name;
  },
  params: {
    programName: (f) => f.names.program,
    enrollmentId: (f) => f.ids.enrollment,
  },
};
