import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor, AuditEntry } from '../../events/audit.ts';
import type { Context } from '../../http/context.ts';
import { pageObject, parseSort } from '../../http/pagination.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError, badField, validationError } from '../../wire/errors.ts';
import { readInstant } from '../../wire/schemas.ts';
import { requireEncounterOf } from '../encounters/index.ts';
import {
  type AssessmentModel,
  assessmentModel,
  checkAnswers,
  findAssessment,
  missingRequiredAnswers,
  questionLabels,
  scoreAnswers,
} from './assessment.ts';
import type {
  AssessmentRecordCreateBody,
  AssessmentRecordListQueryInput,
  AssessmentRecordPutBody,
  AssessmentRecordView,
  AssessmentStatus,
} from './schemas.ts';
import {
  type AssessmentRecordRow,
  deleteAssessmentRecord,
  findAssessmentRecord,
  insertAssessmentRecord,
  listAssessmentRecords,
  sortableAssessmentFields,
  updateAssessmentRecord,
} from './store.ts';
import type { AssessmentRecordsTable } from './tables.ts';
import { assessmentRecordView } from './views.ts';

/**
 * Assessment records (001, DECISIONS §7): every write holds the patient (withPatient) and commits
 * with its audit rows. The rules the spec leaves open are written in docs/decisions.md
 * "Assessment records": statuses, completion and re-completion, answers after completion, scoring.
 */

type Changes = Updateable<AssessmentRecordsTable>;

function notFound(recordId: string, patientId: string): ApiError {
  return new ApiError('ASSESSMENT_RECORD_NOT_FOUND', { recordId, patientId });
}

async function requireRecord(trx: Kysely<DB>, ctx: Context, patientId: string, id: string): Promise<AssessmentRecordRow> {
  const row = await findAssessmentRecord(trx, ctx.scope, patientId, id, { forUpdate: true });
  if (!row) throw notFound(id, patientId);
  return row;
}

/** The assessment of the current formation a record answers, or undefined once the formation dropped it. */
async function currentModel(ctx: Context, name: string): Promise<AssessmentModel | undefined> {
  const definition = findAssessment(await ctx.formation(), name);
  return definition && assessmentModel(definition);
}

/** What the formation gives a record at each write: its questions, scoring and whether a template exists. */
function fromFormation(
  model: AssessmentModel,
  answers: Record<string, unknown>,
): { questions: string; scoring: string; template_exists: boolean } {
  return {
    questions: JSON.stringify(questionLabels(model)),
    scoring: JSON.stringify(scoreAnswers(model, answers)),
    template_exists: model.templateExists,
  };
}

/** `pfa` is production's key, `isPfa` the seed's (DECISIONS §7); pfa wins when both are sent. */
function pfaOf(body: { pfa?: boolean | undefined; isPfa?: boolean | undefined }): boolean | undefined {
  return body.pfa ?? body.isPfa;
}

/**
 * Moving to COMPLETED: the first time sets finalizedDate, completedBy(Name) and completedVersion
 * (the version this write gives the record); a record completed before is re-completed, which
 * sets recompleted* and keeps the first completion's fields. Every required question must be
 * answered (400 naming each one that is not).
 */
function completion(
  row: Pick<AssessmentRecordRow, 'finalized_date'> | undefined,
  model: AssessmentModel | undefined,
  answers: Record<string, unknown>,
  actor: Actor,
  at: Date,
  version: number,
): { changes: Changes; action: 'ASSESSMENT_RECORD_COMPLETED' | 'ASSESSMENT_RECORD_RECOMPLETED' } {
  const missing = model ? missingRequiredAnswers(model, answers) : [];
  if (missing.length > 0) throw validationError(missing);
  if (!row?.finalized_date) {
    return {
      changes: {
        status: 'COMPLETED',
        finalized_date: at,
        completed_by: actor.id,
        completed_by_name: actor.name,
        completed_version: version,
      },
      action: 'ASSESSMENT_RECORD_COMPLETED',
    };
  }
  return {
    changes: { status: 'COMPLETED', recompleted_by: actor.id, recompleted_by_name: actor.name, recompleted_at: at },
    action: 'ASSESSMENT_RECORD_RECOMPLETED',
  };
}

function audit(action: AuditEntry['action'], row: AssessmentRecordRow, changedFields?: string[]): AuditEntry {
  return {
    action,
    entityType: 'ASSESSMENT',
    entityId: row.id,
    patientId: row.patient_id,
    about: { assessmentName: row.assessment_name },
    ...(changedFields ? { changedFields } : {}),
  };
}

/** Body keys create and PUT write, for the audit's changedFields. */
const writableKeys = ['assessmentTitle', 'pfa', 'isPfa', 'status', 'folderId', 'expirationDate', 'encounterId'] as const;

/** The columns of the writable keys present in a body (absent keys change nothing). */
function writableChanges(body: AssessmentRecordPutBody): Changes {
  const changes: Changes = {};
  if (body.assessmentTitle !== undefined) changes.assessment_title = body.assessmentTitle;
  const pfa = pfaOf(body);
  if (pfa !== undefined) changes.pfa = pfa;
  if (body.folderId !== undefined) changes.folder_id = body.folderId;
  if (body.expirationDate !== undefined) changes.expiration_date = body.expirationDate ? readInstant(body.expirationDate) : null;
  if (body.encounterId !== undefined) changes.encounter_id = body.encounterId?.toLowerCase() ?? null;
  return changes;
}

export async function listRecords(
  ctx: Context,
  patientId: string,
  query: AssessmentRecordListQueryInput,
): Promise<ReturnType<typeof pageObject<AssessmentRecordView>>> {
  await requirePatient(ctx, patientId);
  const sort = parseSort(query.sort, sortableAssessmentFields);
  const paging = { page: query.page, size: query.size };
  const statuses = query.statuses ? [...new Set(query.statuses)] : undefined;
  const { rows, total } = await listAssessmentRecords(ctx.db, ctx.scope, patientId, { statuses }, paging, sort);
  const content = rows.map((row) => assessmentRecordView(row, ctx.timezone));
  return pageObject(content, total, paging, sort.length > 0);
}

export async function getRecord(ctx: Context, patientId: string, id: string): Promise<AssessmentRecordView> {
  await requirePatient(ctx, patientId);
  const row = await findAssessmentRecord(ctx.db, ctx.scope, patientId, id);
  if (!row) throw notFound(id, patientId);
  return assessmentRecordView(row, ctx.timezone);
}

/** POST: a record of an assessment of the current formation, NEW unless the body says; no answers yet. */
export async function createRecord(
  ctx: Context,
  patientId: string,
  body: AssessmentRecordCreateBody,
): Promise<AssessmentRecordView> {
  const definition = findAssessment(await ctx.formation(), body.assessmentName);
  if (!definition) {
    throw badField('body.assessmentName', `there is no assessment "${body.assessmentName}" in the current formation`);
  }
  const model = assessmentModel(definition);
  const { actor, scope } = ctx;
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const now = w.now;
    const encounterId = body.encounterId ? await requireEncounterOf(ctx, w, patient.id, body.encounterId) : null;
    const status: AssessmentStatus = body.status ?? 'NEW';
    const done = status === 'COMPLETED' ? completion(undefined, model, {}, actor, now, 1) : undefined;
    const inserted = await insertAssessmentRecord(w.db, {
      tenant_id: scope.tenantId,
      instance_id: scope.instanceId,
      id: uuidv7(),
      patient_id: patientId,
      assessment_name: model.name,
      assessment_title: body.assessmentTitle === undefined ? model.title : body.assessmentTitle,
      status,
      version: 1,
      pfa: pfaOf(body) ?? false,
      answers: '{}',
      ...fromFormation(model, {}),
      folder_id: body.folderId ?? null,
      expiration_date: body.expirationDate ? readInstant(body.expirationDate) : null,
      encounter_id: encounterId,
      external_guid: randomUUID(),
      ...w.created(),
      ...done?.changes,
    });
    w.changed([
      audit(
        'ASSESSMENT_RECORD_CREATED',
        inserted,
        ['assessmentName', ...writableKeys].filter((key) => Object.hasOwn(body, key)),
      ),
      ...(done ? [audit(done.action, inserted, ['status'])] : []),
    ]);
    return inserted;
  });
  return assessmentRecordView(row, ctx.timezone);
}

/**
 * PUT: the keys present change, read-only ones are ignored. The assessment is fixed at creation;
 * a record that was started cannot go back to NEW; COMPLETED completes (or re-completes) it.
 */
export async function updateRecord(
  ctx: Context,
  patientId: string,
  id: string,
  body: AssessmentRecordPutBody,
): Promise<AssessmentRecordView> {
  const { actor } = ctx;
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const trx = w.db;
    const existing = await requireRecord(trx, ctx, patientId, id);
    if (body.assessmentName !== undefined && body.assessmentName !== existing.assessment_name) {
      throw badField('body.assessmentName', `the record answers "${existing.assessment_name}"; it cannot change`);
    }
    // Only a new encounter is checked: the record sent back as read keeps its own (DECISIONS §10),
    // even one whose encounter was deleted since.
    if (body.encounterId && body.encounterId.toLowerCase() !== existing.encounter_id) {
      await requireEncounterOf(ctx, w, patient.id, body.encounterId);
    }
    const model = await currentModel(ctx, existing.assessment_name);
    const answers = existing.answers as Record<string, unknown>;
    const now = w.now;
    const version = existing.version + 1;
    const changes: Changes = { ...writableChanges(body), ...(model ? fromFormation(model, answers) : {}) };
    const entries: AuditEntry[] = [];
    if (body.status === 'NEW' && existing.status !== 'NEW') {
      throw badField('body.status', `a record ${existing.status} cannot go back to NEW`);
    }
    if (body.status === 'COMPLETED') {
      const done = completion(existing, model, answers, actor, now, version);
      Object.assign(changes, done.changes);
      entries.push(audit(done.action, existing, ['status']));
    } else if (body.status !== undefined) {
      changes.status = body.status;
    }
    const updated = await updateAssessmentRecord(trx, existing, { ...changes, ...w.updated() });
    entries.unshift(
      audit(
        'ASSESSMENT_RECORD_UPDATED',
        updated,
        writableKeys.filter((key) => body[key] !== undefined),
      ),
    );
    w.changed(entries);
    return updated;
  });
  return assessmentRecordView(row, ctx.timezone);
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * PUT .../answers (DECISIONS §7): flat `<cdt>__<field>` keys, each checked against its question's
 * type; keys present are saved, null clears one, keys left out keep theirs. The scoring is
 * computed again. A NEW record moves to IN_PROGRESS; so does a COMPLETED one whose answers this
 * changes, which must then be completed again (a re-completion).
 */
export async function saveAnswers(
  ctx: Context,
  patientId: string,
  id: string,
  body: Record<string, unknown>,
): Promise<AssessmentRecordView> {
  const row = await withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    const existing = await requireRecord(trx, ctx, patientId, id);
    const model = await currentModel(ctx, existing.assessment_name);
    if (!model) {
      throw badField('body', `the assessment "${existing.assessment_name}" is no longer in the current formation`);
    }
    const { answers: given, problems } = checkAnswers(model, body);
    if (problems.length > 0) throw validationError(problems);
    const before = existing.answers as Record<string, unknown>;
    const answers: Record<string, unknown> = { ...before };
    for (const [key, value] of Object.entries(given)) {
      if (value === null) delete answers[key];
      else answers[key] = value;
    }
    const changed = Object.keys(given).some((key) => !sameValue(before[key], answers[key]));
    const status: string =
      existing.status === 'NEW' || (changed && existing.status === 'COMPLETED') ? 'IN_PROGRESS' : existing.status;
    const updated = await updateAssessmentRecord(trx, existing, {
      answers: JSON.stringify(answers),
      ...fromFormation(model, answers),
      status,
      ...w.updated(),
    });
    w.changed(audit('ASSESSMENT_RECORD_UPDATED', updated, status === existing.status ? ['answers'] : ['answers', 'status']));
    return updated;
  });
  return assessmentRecordView(row, ctx.timezone);
}

export async function deleteRecord(ctx: Context, patientId: string, id: string): Promise<void> {
  await withPatient(ctx, patientId, async (w) => {
    const existing = await requireRecord(w.db, ctx, patientId, id);
    await deleteAssessmentRecord(w.db, existing);
    w.changed(audit('ASSESSMENT_RECORD_DELETED', existing));
  });
}
