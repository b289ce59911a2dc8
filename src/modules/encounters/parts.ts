import { uuidv7 } from '../../db/ids.ts';
import type { Context } from '../../http/context.ts';
import { type CdtRecordView, cdtRecordView } from '../../records/cdt-view.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { encounterForPart, encounterRecords, linkValues, partChanged } from './operations.ts';
import type { EncounterCommentView } from './schemas.ts';
import { type CommentRow, commentsOf, findAssessmentRecord, findComment, partsOf } from './store.ts';
import { ASSESSMENT_LINK, DISPOSITION, encounterSource } from './types.ts';

/**
 * The parts of an encounter (DECISIONS §7): comments, the disposition and assessment links, under
 * `/patients/{pid}/encounters/{eid}/`. Reads need the encounter in the patient; writes hold the
 * patient, and on a FINALIZED encounter need ENCOUNTER_FINALIZED_UPDATE.
 */

export function commentView(row: CommentRow): EncounterCommentView {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
    encounterId: row.encounter_id,
    text: row.text,
  };
}

async function readable(ctx: Context, patientId: string, encounterId: string) {
  const handles = await encounterRecords(ctx);
  await requirePatient(ctx, patientId);
  const encounter = await handles.encounters.require(ctx.db, encounterId, { patientId });
  return { ...handles, encounter };
}

// ---- Comments --------------------------------------------------------------------------------

export async function listComments(ctx: Context, patientId: string, encounterId: string): Promise<EncounterCommentView[]> {
  const { encounter } = await readable(ctx, patientId, encounterId);
  return (await commentsOf(ctx.db, ctx.scope, [encounter.id])).map(commentView);
}

export async function addComment(
  ctx: Context,
  patientId: string,
  encounterId: string,
  text: string,
): Promise<EncounterCommentView> {
  const { encounters } = await encounterRecords(ctx);
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const encounter = await encounterForPart(ctx, w, encounters, patient, encounterId);
    const id = uuidv7();
    const inserted = await w.db
      .insertInto('encounter_comments')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        id,
        encounter_id: encounter.id,
        patient_id: patient.id,
        text,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({ action: 'ENCOUNTER_COMMENT_CREATED', entityType: 'ENCOUNTER_COMMENT', entityId: id, patientId: patient.id });
    partChanged(w, encounter, 'comments');
    return inserted;
  });
  return commentView(row);
}

export async function changeComment(
  ctx: Context,
  patientId: string,
  encounterId: string,
  commentId: string,
  text: string | null,
): Promise<EncounterCommentView | undefined> {
  const { encounters } = await encounterRecords(ctx);
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const encounter = await encounterForPart(ctx, w, encounters, patient, encounterId);
    const comment = await findComment(w.db, ctx.scope, encounter.id, commentId, true);
    if (!comment) throw new ApiError('ENCOUNTER_COMMENT_NOT_FOUND', { patientId, encounterId, commentId });
    if (text === null) {
      await w.db
        .deleteFrom('encounter_comments')
        .where('tenant_id', '=', ctx.scope.tenantId)
        .where('id', '=', comment.id)
        .execute();
      w.changed({
        action: 'ENCOUNTER_COMMENT_DELETED',
        entityType: 'ENCOUNTER_COMMENT',
        entityId: comment.id,
        patientId: patient.id,
      });
      partChanged(w, encounter, 'comments');
      return undefined;
    }
    const updated = await w.db
      .updateTable('encounter_comments')
      .set({ text, ...w.updated() })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', comment.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'ENCOUNTER_COMMENT_UPDATED',
      entityType: 'ENCOUNTER_COMMENT',
      entityId: comment.id,
      patientId: patient.id,
      changedFields: ['text'],
    });
    partChanged(w, encounter, 'comments');
    return updated;
  });
  return row ? commentView(row) : undefined;
}

// ---- Disposition -----------------------------------------------------------------------------

export async function getDisposition(ctx: Context, patientId: string, encounterId: string): Promise<CdtRecordView> {
  const { encounter, dispositions } = await readable(ctx, patientId, encounterId);
  const [row] = await partsOf(ctx.db, ctx.scope, [encounter.id], [DISPOSITION]);
  if (!row) throw dispositions.notFound(encounterId, { patientId, encounterId });
  return cdtRecordView(row, dispositions.type.fieldNames);
}

/** PATCH: the disposition form's fields given (a flat map, as CDT records take); made on first write when the encounter has none. */
export async function changeDisposition(
  ctx: Context,
  patientId: string,
  encounterId: string,
  body: Record<string, unknown>,
): Promise<CdtRecordView> {
  const { encounters, dispositions } = await encounterRecords(ctx);
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const encounter = await encounterForPart(ctx, w, encounters, patient, encounterId);
    const changes = dispositions.values(body, { partial: true });
    const [existing] = await partsOf(w.db, ctx.scope, [encounter.id], [DISPOSITION], { forUpdate: true });
    partChanged(w, encounter, 'disposition');
    if (existing) return dispositions.change(w, existing, changes);
    const created = await dispositions.create(w, changes, { patientId: patient.id, source: encounterSource(encounter.id) });
    await encounters.change(w, encounter, { dispositionId: created.id });
    return created;
  });
  return cdtRecordView(row, dispositions.type.fieldNames);
}

// ---- Assessment links ------------------------------------------------------------------------

export async function listLinks(ctx: Context, patientId: string, encounterId: string): Promise<CdtRecordView[]> {
  const { encounter, links } = await readable(ctx, patientId, encounterId);
  return (await partsOf(ctx.db, ctx.scope, [encounter.id], [ASSESSMENT_LINK])).map((row) =>
    cdtRecordView(row, links.type.fieldNames),
  );
}

export async function getLink(ctx: Context, patientId: string, encounterId: string, linkId: string): Promise<CdtRecordView> {
  const { encounter, links } = await readable(ctx, patientId, encounterId);
  const row = await links.require(ctx.db, linkId, { patientId });
  if (row.source_id !== encounter.id) throw links.notFound(linkId, { patientId, encounterId });
  return cdtRecordView(row, links.type.fieldNames);
}

/** POST `{assessmentName}`: 201 with the link; the name must be an assessment of the formation. */
export async function addLink(
  ctx: Context,
  patientId: string,
  encounterId: string,
  assessmentName: string,
): Promise<CdtRecordView> {
  const { formation, encounters, links } = await encounterRecords(ctx);
  const values = linkValues(formation, assessmentName, false, 'body.assessmentName');
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const encounter = await encounterForPart(ctx, w, encounters, patient, encounterId);
    partChanged(w, encounter, 'assessmentLinks');
    return links.create(w, values, { patientId: patient.id, source: encounterSource(encounter.id) });
  });
  return cdtRecordView(row, links.type.fieldNames);
}

/**
 * PATCH `{assessmentRecordId}` (null clears it), and DELETE (`assessmentRecordId` undefined): the
 * record named must be an assessment record of the patient, of the link's assessment.
 */
export async function changeLink(
  ctx: Context,
  patientId: string,
  encounterId: string,
  linkId: string,
  assessmentRecordId: string | null | undefined,
): Promise<CdtRecordView | undefined> {
  const { encounters, links } = await encounterRecords(ctx);
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const encounter = await encounterForPart(ctx, w, encounters, patient, encounterId);
    const link = await links.require(w.db, linkId, { patientId: patient.id, forUpdate: true });
    if (link.source_id !== encounter.id) throw links.notFound(linkId, { patientId, encounterId });
    partChanged(w, encounter, 'assessmentLinks');
    if (assessmentRecordId === undefined) {
      await links.remove(w, link);
      return undefined;
    }
    if (assessmentRecordId !== null) {
      const record = await findAssessmentRecord(w.db, ctx.scope, patient.id, assessmentRecordId);
      const name = (link.values as Record<string, unknown>).assessmentName;
      if (!record) {
        throw validationError([
          { path: 'body.assessmentRecordId', message: `no assessment record ${assessmentRecordId} of this patient` },
        ]);
      }
      if (record.assessment_name !== name) {
        throw validationError([
          {
            path: 'body.assessmentRecordId',
            message: `the record is of assessment "${record.assessment_name}", the link of "${name}"`,
          },
        ]);
      }
    }
    return links.change(w, link, { assessmentRecordId: assessmentRecordId?.toLowerCase() ?? null });
  });
  return row ? cdtRecordView(row, links.type.fieldNames) : undefined;
}
