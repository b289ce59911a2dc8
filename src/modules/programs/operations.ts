import { uuidv7 } from '../../db/ids.ts';
import type { PatientScope } from '../../db/scope.ts';
import type { Actor } from '../../events/audit.ts';
import type { Work } from '../../events/work.ts';
import type { Formation } from '../../formation/schemas.ts';
import type { Context } from '../../http/context.ts';
import { withPatient } from '../../records/patient-scope.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, badField } from '../../wire/errors.ts';
import { uuidPattern } from '../../wire/schemas.ts';
import type { ProgramDefinition } from './formation.ts';
import type { PatientProgramView, ProgramPatchBody, ProgramStatus } from './schemas.ts';
import {
  deleteEnrolment,
  type EnrolmentRow,
  enrolmentById,
  insertEnrolment,
  phasesJson,
  runningEnrolment,
  updateEnrolment,
} from './store.ts';
import type { ProgramPhase } from './tables.ts';
import { placeholderView, programOf, programView } from './views.ts';

/** The program writes: each is one unit of work with its audit rows and events. */

type PhaseDefinition = ProgramDefinition['phases'][number];

function refOf(ctx: Context, patientId: string): PatientScope {
  return { ...ctx.scope, patientId };
}

/** Writes to one patient's programs run one after another: one running enrolment per program. */
const SERIAL = { serialize: 'programs' };

export function notRunning(programName: string, patientId: string): ApiError {
  // PROD-SHAPES: the details production gives for a missing running enrolment.
  return new ApiError('PATIENT_PROGRAM_NOT_FOUND', { programName, patientId, notStatus: 'FINISHED' });
}

export function noEnrolment(id: string, patientId: string): ApiError {
  return new ApiError('PATIENT_PROGRAM_NOT_FOUND', { id, patientId });
}

function requireProgram(formation: Formation, programName: string): ProgramDefinition {
  const program = programOf(formation, programName);
  if (!program) throw new ApiError('PROGRAM_NOT_FOUND', { programName });
  return program;
}

function requirePhase(program: ProgramDefinition | undefined, phaseName: string): PhaseDefinition {
  const phase = program?.phases.find((candidate) => candidate.name === phaseName);
  if (!phase) {
    const names = (program?.phases ?? []).map((candidate) => candidate.name);
    throw badField(
      'body.phaseName',
      `no phase "${phaseName}" in this program${names.length ? ` (phases: ${names.join(', ')})` : ''}`,
    );
  }
  return phase;
}

function phaseEntry(phase: PhaseDefinition, actor: Actor, instance: Instance, at: Date): ProgramPhase {
  return {
    timestamp: at.toISOString(),
    createdBy: actor.id,
    createdByName: actor.name,
    name: phase.name,
    title: phase.title ?? null,
    description: phase.description ?? null,
    currentVersion: String(instance.currentFormationVersion ?? 0),
    deleted: false,
  };
}

/** DECISIONS §8: entering a FINISH phase finishes the program, whatever status was asked for. */
function statusOnEntering(
  phase: PhaseDefinition,
  asked: ProgramStatus | null | undefined,
  otherwise: ProgramStatus,
): ProgramStatus {
  if (phase.type === 'FINISH') return 'FINISHED';
  return asked ?? otherwise;
}

/**
 * DECISIONS §7: PATCH /{programName} enrols the patient when not enrolled (at `phaseName`, or
 * the START phase); otherwise it applies `phaseName` and `status`. `assigned: false` unassigns.
 */
export async function patchProgram(
  ctx: Context,
  patientId: string,
  programName: string,
  body: ProgramPatchBody,
): Promise<PatientProgramView> {
  const { instance, actor } = ctx;
  const formation = await ctx.formation();
  const ref = refOf(ctx, patientId);
  return withPatient(
    ctx,
    patientId,
    async (w) => {
      const trx = w.db;
      const program = requireProgram(formation, programName);
      const asked = body.phaseName ? requirePhase(program, body.phaseName) : undefined;
      const running = await runningEnrolment(trx, ref, programName);
      if (body.assigned === false) {
        if (running) await unassign(w, running);
        return placeholderView(program);
      }
      const now = w.now;
      if (!running) {
        const phase = asked ?? program.phases.find((candidate) => candidate.type === 'START') ?? program.phases[0]!;
        const entry = phaseEntry(phase, actor, instance, now);
        const id = uuidv7();
        const inserted = await insertEnrolment(trx, {
          tenant_id: instance.tenantId,
          id,
          instance_id: instance.id,
          patient_id: patientId,
          program_name: programName,
          status: statusOnEntering(phase, body.status, 'IN_PROGRESS'),
          current_phase: JSON.stringify(entry),
          path_history: phasesJson([entry]),
          ...w.created(),
        });
        w.changed({
          action: 'PROGRAM_ENROLLED',
          entityType: 'PATIENT_PROGRAM',
          entityId: id,
          patientId,
          changedFields: ['status', 'currentPhase', 'pathHistory'],
          about: { programName },
        });
        return programView(inserted, formation);
      }
      return programView(await changeEnrolment(w, instance, running, asked, body.status ?? undefined), formation);
    },
    SERIAL,
  );
}

/** 001: PATCH /{programName}/phases moves a running enrolment to a phase of the current formation. */
export async function changePhase(
  ctx: Context,
  patientId: string,
  programName: string,
  phaseName: string,
): Promise<PatientProgramView> {
  const { instance } = ctx;
  const formation = await ctx.formation();
  const ref = refOf(ctx, patientId);
  const row = await withPatient(
    ctx,
    patientId,
    async (w) => {
      const running = await runningEnrolment(w.db, ref, programName);
      if (!running) throw notRunning(programName, patientId);
      const phase = requirePhase(programOf(formation, programName), phaseName);
      return changeEnrolment(w, instance, running, phase, undefined);
    },
    SERIAL,
  );
  return programView(row, formation);
}

/**
 * Applies a phase and a status to a running enrolment. A new phase is appended to pathHistory;
 * asking for the phase it is already in is not a change. Nothing changed: nothing is written.
 */
async function changeEnrolment(
  w: Work,
  instance: Instance,
  running: EnrolmentRow,
  phase: PhaseDefinition | undefined,
  status: ProgramStatus | undefined,
): Promise<EnrolmentRow> {
  const entering = phase && phase.name !== running.current_phase.name ? phase : undefined;
  const nextStatus = entering ? statusOnEntering(entering, status, running.status as ProgramStatus) : (status ?? running.status);
  const changedFields = [
    ...(entering ? ['currentPhase', 'pathHistory'] : []),
    ...(nextStatus !== running.status ? ['status'] : []),
  ];
  if (changedFields.length === 0) return running;
  const entry = entering ? phaseEntry(entering, w.actor, instance, w.now) : undefined;
  const updated = await updateEnrolment(w.db, instance.tenantId, running.id, {
    status: nextStatus,
    ...(entry ? { current_phase: JSON.stringify(entry), path_history: phasesJson([...running.path_history, entry]) } : {}),
    ...w.updated(),
  });
  w.changed({
    action: entering ? 'PROGRAM_PHASE_CHANGED' : 'PROGRAM_UPDATED',
    entityType: 'PATIENT_PROGRAM',
    entityId: running.id,
    patientId: running.patient_id,
    changedFields,
    about: { programName: running.program_name, ...(entering ? { phaseName: entering.name } : {}) },
  });
  return updated;
}

async function unassign(w: Work, row: EnrolmentRow): Promise<void> {
  await deleteEnrolment(w.db, row.tenant_id, row.id);
  w.changed({
    action: 'PROGRAM_UNASSIGNED',
    entityType: 'PATIENT_PROGRAM',
    entityId: row.id,
    patientId: row.patient_id,
    about: { programName: row.program_name },
  });
}

/**
 * DECISIONS §7: DELETE takes an enrolment id (any status) or a program name (its running
 * enrolment). A uuid that is no enrolment is tried as a program name too.
 */
export async function unassignProgram(ctx: Context, patientId: string, key: string): Promise<void> {
  const ref = refOf(ctx, patientId);
  await withPatient(
    ctx,
    patientId,
    async (w) => {
      const isId = uuidPattern.test(key);
      const row =
        (isId ? await enrolmentById(w.db, ref, key.toLowerCase()) : undefined) ?? (await runningEnrolment(w.db, ref, key));
      if (!row) throw isId ? noEnrolment(key, patientId) : notRunning(key, patientId);
      await unassign(w, row);
    },
    SERIAL,
  );
}
