import { authorshipView } from '../../events/audit.ts';
import type { Formation } from '../../formation/schemas.ts';
import type { ProgramDefinition } from './formation.ts';
import type { PatientProgramView, ProgramStatus } from './schemas.ts';
import type { EnrolmentRow } from './store.ts';
import type { ProgramPhase } from './tables.ts';

type PhaseView = PatientProgramView['pathHistory'][number];

export function programOf(formation: Formation, programName: string): ProgramDefinition | undefined {
  return (formation.programs ?? []).find((program) => program.name === programName);
}

/** Titles and descriptions come from the current formation; a phase it no longer has keeps what was stored. */
function phaseView(phase: ProgramPhase, program: ProgramDefinition | undefined): PhaseView {
  const current = program?.phases.find((candidate) => candidate.name === phase.name);
  return {
    timestamp: phase.timestamp,
    createdBy: phase.createdBy,
    createdByName: phase.createdByName,
    name: phase.name,
    title: current ? (current.title ?? null) : phase.title,
    description: current ? (current.description ?? null) : phase.description,
    currentVersion: phase.currentVersion,
    deleted: !current,
  };
}

/** An enrolment (running or finished) as the API returns it. */
export function programView(row: EnrolmentRow, formation: Formation): PatientProgramView {
  const program = programOf(formation, row.program_name);
  const currentPhase = phaseView(row.current_phase, program);
  return {
    id: row.id,
    ...authorshipView(row),
    programName: row.program_name,
    // A program gone from the formation has no title left to show.
    programTitle: program?.title ?? null,
    programDescription: program?.description ?? null,
    assigned: true,
    patientId: row.patient_id,
    currentPhase,
    status: row.status as ProgramStatus,
    compatibleWithCurrentVersion: program !== undefined && !currentPhase.deleted,
    pathHistory: row.path_history.map((phase) => phaseView(phase, program)),
  };
}

/** PROD-SHAPES: a program of the formation the patient is not enrolled in. */
export function placeholderView(program: ProgramDefinition): PatientProgramView {
  return {
    id: null,
    createdByName: null,
    createdAt: null,
    updatedByName: null,
    updatedAt: null,
    programName: program.name,
    programTitle: program.title ?? null,
    programDescription: program.description ?? null,
    assigned: false,
    patientId: null,
    currentPhase: null,
    status: null,
    compatibleWithCurrentVersion: false,
    pathHistory: [],
  };
}

/**
 * The programs of one patient: each program of the formation (its shown enrolment or a
 * placeholder), then enrolments in programs the formation no longer has; by programName.
 */
export function patientProgramList(shown: EnrolmentRow[], formation: Formation): PatientProgramView[] {
  const byProgram = new Map(shown.map((row) => [row.program_name, row]));
  const known = new Set<string>();
  const list: PatientProgramView[] = [];
  for (const program of formation.programs ?? []) {
    known.add(program.name);
    const row = byProgram.get(program.name);
    list.push(row ? programView(row, formation) : placeholderView(program));
  }
  for (const row of shown) if (!known.has(row.program_name)) list.push(programView(row, formation));
  return list.sort((a, b) => compareNames(a.programName, b.programName));
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** For the patients list: per patient, its shown enrolments (running, else latest finished), by programName. */
export function enrolledPrograms(shown: EnrolmentRow[], formation: Formation): Map<string, PatientProgramView[]> {
  const byPatient = new Map<string, PatientProgramView[]>();
  for (const row of shown) {
    const list = byPatient.get(row.patient_id) ?? [];
    list.push(programView(row, formation));
    byPatient.set(row.patient_id, list);
  }
  for (const list of byPatient.values()) list.sort((a, b) => compareNames(a.programName, b.programName));
  return byPatient;
}
