import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { DataAndMeta, dataAndMeta, offsetOf, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, PatientParams } from '../../wire/schemas.ts';
import { changePhase, noEnrolment, notRunning, patchProgram, unassignProgram } from './operations.ts';
import { EnrollmentParams, PatientProgram, PhasePatch, ProgramListQuery, ProgramNameParams, ProgramPatch } from './schemas.ts';
import { enrolmentById, runningEnrolment, shownEnrolments } from './store.ts';
import { compareNames, patientProgramList, programView } from './views.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Patient programs'];
const PATH = '/:tenantName/:instanceName/patients/:patientId/programs';

/** The list is built from the formation, so its only order is by name (computed in memory: a patient has few programs). */
const sortable = { programName: 'programName' };

const programRoutes: AreaPlugin = async (app) => {
  app.get(
    PATH,
    {
      config: needs('PROGRAM_READ', { discloses: thePatient('PROGRAM') }),
      schema: {
        tags,
        summary: "The formation's programs as this patient's enrolments or unassigned placeholders (data and meta)",
        description:
          'Each program of the current formation appears once: its running enrolment, else its latest finished one, else an unassigned placeholder (`id: null, assigned: false`). Enrolments in programs the formation no longer has follow, with `compatibleWithCurrentVersion: false`. `assignedPrograms` (alias `assigned`) keeps enrolled or unassigned programs only. Ordered by programName.',
        params: PatientParams,
        querystring: ProgramListQuery,
        response: { 200: DataAndMeta(PatientProgram), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { page, size, sort, assignedPrograms, assigned } = request.query;
      const [key] = parseSort(sort, sortable);
      const patient = await requirePatient(ctx, request.params.patientId);
      const [formation, shown] = await Promise.all([ctx.formation(), shownEnrolments(ctx.db, ctx.scope, [patient.id])]);
      const wanted = assignedPrograms ?? assigned;
      let list = patientProgramList(shown, formation);
      if (wanted !== undefined) list = list.filter((program) => program.assigned === wanted);
      if (key?.direction === 'desc') list.sort((a, b) => compareNames(b.programName, a.programName));
      const paging = { page, size };
      return dataAndMeta(list.slice(offsetOf(paging), offsetOf(paging) + size), list.length, paging);
    },
  );

  app.get(
    `${PATH}/current/:programName`,
    {
      config: needs('PROGRAM_READ', { discloses: thePatient('PROGRAM') }),
      schema: {
        tags,
        summary: "The patient's running (not FINISHED) enrolment in a program",
        description: 'Query parameters (assigned, page, size, sort) are accepted and ignored.',
        params: ProgramNameParams,
        response: { 200: PatientProgram, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, programName } = request.params;
      await requirePatient(ctx, patientId);
      const row = await runningEnrolment(ctx.db, { ...ctx.scope, patientId }, programName);
      if (!row) throw notRunning(programName, patientId);
      return programView(row, await ctx.formation());
    },
  );

  app.get(
    `${PATH}/history/:enrollmentId`,
    {
      config: needs('PROGRAM_READ', { discloses: thePatient('PROGRAM') }),
      schema: {
        tags,
        summary: 'One enrolment by id, running or finished',
        description: 'Query parameters (assigned, page, size, sort) are accepted and ignored.',
        params: EnrollmentParams,
        response: { 200: PatientProgram, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { patientId, enrollmentId } = request.params;
      await requirePatient(ctx, patientId);
      const row = await enrolmentById(ctx.db, { ...ctx.scope, patientId }, enrollmentId);
      if (!row) throw noEnrolment(enrollmentId, patientId);
      return programView(row, await ctx.formation());
    },
  );

  app.patch(
    `${PATH}/:programName`,
    {
      config: needs('PROGRAM_UPDATE', { discloses: thePatient('PROGRAM') }),
      schema: {
        tags,
        summary: 'Enrol the patient, or change the running enrolment',
        description:
          'Not enrolled: enrols at `phaseName` (default: the START phase) with `status` (default IN_PROGRESS). Enrolled: a new `phaseName` is appended to pathHistory, and `status` is set. Entering a FINISH phase finishes the program. `assigned: false` unassigns and answers the unassigned placeholder. The program must be in the current formation.',
        params: ProgramNameParams,
        body: ProgramPatch,
        response: { 200: PatientProgram, ...errors },
      },
    },
    async (request) => {
      const { patientId, programName } = request.params;
      return patchProgram(contextOf(request), patientId, programName, request.body);
    },
  );

  app.patch(
    `${PATH}/:programName/phases`,
    {
      config: needs('PROGRAM_UPDATE', { discloses: thePatient('PROGRAM') }),
      schema: {
        tags,
        summary: 'Move the running enrolment to a phase',
        description:
          'The phase must exist in the program of the current formation; it is appended to pathHistory. A FINISH phase finishes the program. Naming the current phase changes nothing.',
        params: ProgramNameParams,
        body: PhasePatch,
        response: { 200: PatientProgram, ...errors },
      },
    },
    async (request) => {
      const { patientId, programName } = request.params;
      return changePhase(contextOf(request), patientId, programName, request.body.phaseName);
    },
  );

  app.delete(
    `${PATH}/:programName`,
    {
      config: needs('PROGRAM_UPDATE', { discloses: thePatient('PROGRAM') }),
      schema: {
        tags,
        summary: 'Unassign: delete an enrolment by id, or the running enrolment by program name',
        description:
          'A uuid is an enrolment id (running or finished); anything else a program name. Answers 200 with an empty body.',
        params: ProgramNameParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, programName } = request.params;
      await unassignProgram(contextOf(request), patientId, programName);
      return reply.send();
    },
  );
};

export default programRoutes;
