import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';

/** DECISIONS §8: the program statuses. */
export const programStatuses = ['NOT_STARTED', 'IN_PROGRESS', 'FINISHED'] as const;
export type ProgramStatus = (typeof programStatuses)[number];

/** 001 "Patient program" phase; titles come from the formation, `deleted` when it no longer has the phase. */
export const Phase = Type.Object({
  timestamp: DateTime,
  createdBy: Nullable(Uuid),
  createdByName: Nullable(Type.String()),
  name: Type.String(),
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  currentVersion: Type.String({ description: 'The formation version the phase was entered under, e.g. "2"' }),
  deleted: Type.Boolean({ description: 'The current formation no longer has this phase' }),
});

/** 001 "Patient program"; an unassigned program (PROD-SHAPES) has nulls and `assigned: false`. */
export const PatientProgram = Type.Object({
  id: Nullable(Uuid),
  createdByName: Nullable(Type.String()),
  createdAt: Nullable(DateTime),
  updatedByName: Nullable(Type.String()),
  updatedAt: Nullable(DateTime),
  programName: Type.String(),
  programTitle: Nullable(Type.String()),
  programDescription: Nullable(Type.String()),
  assigned: Type.Boolean(),
  patientId: Nullable(Uuid),
  currentPhase: Nullable(Phase),
  status: Nullable(Type.Enum(programStatuses)),
  compatibleWithCurrentVersion: Type.Boolean({
    description: 'The program and the current phase both exist in the current formation',
  }),
  pathHistory: Type.Array(Phase, { description: 'Every phase entered, oldest first; the last is currentPhase' }),
});
export type PatientProgramView = Static<typeof PatientProgram>;

export const ProgramListQuery = Type.Object({
  ...PagingQuery,
  assignedPrograms: Type.Optional(Type.Boolean({ description: 'true: enrolled programs only; false: the others only' })),
  assigned: Type.Optional(Type.Boolean({ description: 'Alias of assignedPrograms' })),
});

export const ProgramNameParams = Type.Object({ ...PatientParams.properties, programName: Type.String({ minLength: 1 }) });
export const EnrollmentParams = Type.Object({ ...PatientParams.properties, enrollmentId: Uuid });

/** DECISIONS §10: other keys (a whole program read back) are ignored; null means "not given". */
export const ProgramPatch = Type.Object({
  status: Type.Optional(Nullable(Type.Enum(programStatuses))),
  assigned: Type.Optional(Nullable(Type.Boolean())),
  phaseName: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
});
export type ProgramPatchBody = Static<typeof ProgramPatch>;

export const PhasePatch = Type.Object({ phaseName: Type.String({ minLength: 1 }) });
