import type { FastifyRequest } from 'fastify';
import { uuidv7 } from '../../db/ids.ts';
import type { PatientScope, PurgedPatient, Work } from '../../events/work.ts';
import { linkIssue } from '../../files/links.ts';
import { deleteFiles, deleteFilesOf, filesOf } from '../../files/store.ts';
import { type InstancePhoneDefinition, phonesFor } from '../../formation/phones.ts';
import type { Context } from '../../http/context.ts';
import { type Paging, parseSort } from '../../http/pagination.ts';
import { attachFiles } from '../../records/attachments.ts';
import { forgetSandboxCopies } from '../../records/messages.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import { patientName } from '../../records/recipients.ts';
import { ApiError, badField } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { faxFiles } from './catalog.ts';
import type { FaxInputBody, FaxListFilters, FaxPatchBody, FaxStatus, FaxView } from './schemas.ts';
import { type FaxRow, findFax, listFaxes, sortableFaxFields } from './store.ts';

/**
 * Faxes (002 "Fax", DECISIONS §8): drafts written, changed, given files and sent; received ones
 * reviewed. Outgoing faxes may name a patient, incoming ones are marked reviewed (PATCH answers
 * 400 for the other). Files: jpg, jpeg, png, pdf, docx, at most 10 and 100 MB a fax (000).
 */

export const FAX_FILES = 'FAX';

const number = (value: string | null) => (value ? { type: 'FAX_NUMBER' as const, faxNumber: value } : null);

/** Rows as the API shows them: their files linked, their patients named (one statement each for the page). */
export async function faxViews(ctx: Context, rows: FaxRow[], origin: string): Promise<FaxView[]> {
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    FAX_FILES,
    rows.map((row) => row.id),
  );
  const linked = ctx.services.files.withLinksByOwner(files, linkIssue(origin, ctx.services.clock.now(), ctx.actor));
  const patientIds = [...new Set(rows.flatMap((row) => (row.patient_id ? [row.patient_id] : [])))];
  const patients = patientIds.length
    ? await ctx.db
        .selectFrom('patients')
        .select(['id', 'first_name', 'last_name'])
        .where('tenant_id', '=', ctx.scope.tenantId)
        .where('id', 'in', patientIds)
        .execute()
    : [];
  const names = new Map(patients.map((patient) => [patient.id, patientName(patient)]));
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
    faxId: row.external_id,
    externalId: row.external_id,
    direction: row.direction,
    fromNumber: row.from_number,
    toNumber: row.to_number,
    sender: number(row.from_number),
    receiver: number(row.to_number),
    subject: row.subject,
    status: row.status as FaxStatus,
    originalStatus: row.original_status,
    statusMessage: row.status_message,
    document: null,
    patient: row.patient_id ? { id: row.patient_id, name: names.get(row.patient_id) ?? '' } : null,
    receivedAt: row.received_at,
    highQuality: row.high_quality,
    files: linked.get(row.id) ?? [],
    sentBy: row.sent_by,
    sentByName: row.sent_by_name,
    reviewed: row.reviewed,
    pages: row.pages,
  }));
}

async function one(ctx: Context, row: FaxRow, origin: string): Promise<FaxView> {
  return (await faxViews(ctx, [row], origin))[0] as FaxView;
}

export async function requireFax(ctx: Context, id: string, db = ctx.db, forUpdate = false): Promise<FaxRow> {
  const row = await findFax(db, ctx.scope, id, forUpdate);
  if (!row) throw new ApiError('FAX_NOT_FOUND', { faxId: id });
  return row;
}

export async function listFaxViews(
  ctx: Context,
  filters: FaxListFilters,
  paging: Paging,
  sort: string | string[] | undefined,
  origin: string,
) {
  const keys = parseSort(sort, sortableFaxFields);
  const { rows, total } = await listFaxes(ctx.db, ctx.scope, filters, paging, keys);
  return { content: await faxViews(ctx, rows, origin), total, sorted: keys.length > 0 };
}

export async function getFax(ctx: Context, id: string, origin: string): Promise<FaxView> {
  return one(ctx, await requireFax(ctx, id), origin);
}

/** The instance's phones a fax may go from: formation instancePhones whose capabilities include FAX. */
export async function faxPhones(ctx: Context): Promise<InstancePhoneDefinition[]> {
  return phonesFor(await ctx.formation(), 'FAX');
}

/** A draft's sender when it names none: the default fax phone, else the first (null when the instance has none). */
export function defaultFaxNumber(phones: InstancePhoneDefinition[]): string | null {
  return (phones.find((phone) => phone.default) ?? phones[0])?.number ?? null;
}

/** 400 VALIDATION_ERROR at `path` unless the number is one of the instance's fax phones. */
export function requireFaxPhone(phones: InstancePhoneDefinition[], number: string | null, path: string): string {
  if (number !== null && phones.some((phone) => phone.number === number)) return number;
  throw badField(
    path,
    number === null
      ? 'the instance has no fax phone to send from (formation instancePhones with FAX)'
      : `${number} is not one of the instance's fax phones (formation instancePhones with FAX)`,
  );
}

/** POST /faxes: a draft (201). */
export async function createFax(ctx: Context, body: FaxInputBody, origin: string): Promise<FaxView> {
  if (body.patientId) await requirePatient(ctx, body.patientId);
  const phones = await faxPhones(ctx);
  const from = body.sender ? requireFaxPhone(phones, body.sender.faxNumber, 'body.sender.faxNumber') : defaultFaxNumber(phones);
  const row = await write(ctx, async (w) => {
    const id = uuidv7();
    const inserted = await w.db
      .insertInto('faxes')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        id,
        direction: 'OUT',
        status: 'DRAFT',
        original_status: null,
        status_message: null,
        external_id: null,
        from_number: from,
        to_number: body.receiver?.faxNumber ?? null,
        subject: body.subject ?? null,
        high_quality: body.highQuality ?? false,
        patient_id: body.patientId ?? null,
        reviewed: null,
        received_at: null,
        sent_at: null,
        sent_by: null,
        sent_by_name: null,
        pages: null,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'FAX_CREATED',
      entityType: 'FAX',
      entityId: id,
      patientId: inserted.patient_id,
      changedFields: Object.keys(body),
    });
    return inserted;
  });
  return one(ctx, row, origin);
}

/** PATCH: the fields given. `patientId` for outgoing faxes only, `reviewed` for incoming ones only (400); numbers and quality while a draft (409). */
export async function updateFax(ctx: Context, id: string, body: FaxPatchBody, origin: string): Promise<FaxView> {
  if (body.patientId) await requirePatient(ctx, body.patientId);
  // Read before the write, which holds the connection (one, on the embedded database).
  const phones = body.sender ? await faxPhones(ctx) : [];
  const row = await write(ctx, async (w) => {
    const fax = await requireFax(ctx, id, w.db, true);
    if (body.patientId !== undefined && fax.direction !== 'OUT')
      throw badField('body.patientId', 'only an outgoing fax names a patient');
    if (body.reviewed !== undefined && fax.direction !== 'IN')
      throw badField('body.reviewed', 'only an incoming fax is reviewed');
    const draftOnly = body.sender !== undefined || body.receiver !== undefined || body.highQuality !== undefined;
    if (draftOnly && fax.status !== 'DRAFT') throw new ApiError('FAX_NOT_DRAFT', { faxId: id, status: fax.status });
    // Only a new sender is checked: the draft sent back as read keeps its own (DECISIONS §10); the send checks it again.
    if (body.sender && body.sender.faxNumber !== fax.from_number)
      requireFaxPhone(phones, body.sender.faxNumber, 'body.sender.faxNumber');
    const updated = await w.db
      .updateTable('faxes')
      .set({
        ...(body.subject !== undefined ? { subject: body.subject } : {}),
        ...(body.highQuality !== undefined ? { high_quality: body.highQuality } : {}),
        ...(body.patientId !== undefined ? { patient_id: body.patientId } : {}),
        ...(body.reviewed !== undefined ? { reviewed: body.reviewed } : {}),
        ...(body.sender !== undefined ? { from_number: body.sender?.faxNumber ?? null } : {}),
        ...(body.receiver !== undefined ? { to_number: body.receiver?.faxNumber ?? null } : {}),
        ...w.updated(),
      })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'FAX_UPDATED',
      entityType: 'FAX',
      entityId: id,
      patientId: updated.patient_id,
      changedFields: Object.keys(body),
    });
    return updated;
  });
  return one(ctx, row, origin);
}

/** DELETE (200, empty): the fax and its files; not while it is being sent (409). */
export async function deleteFax(ctx: Context, id: string): Promise<void> {
  await write(ctx, async (w) => {
    const fax = await requireFax(ctx, id, w.db, true);
    if (fax.status === 'QUEUED' || fax.status === 'SENDING')
      throw new ApiError('FAX_IN_FLIGHT', { faxId: id, status: fax.status });
    await deleteFilesOf(w, ctx.scope, FAX_FILES, id);
    await w.db.deleteFrom('faxes').where('tenant_id', '=', ctx.scope.tenantId).where('id', '=', id).execute();
    w.changed({ action: 'FAX_DELETED', entityType: 'FAX', entityId: id, patientId: fax.patient_id });
  });
}

/** A draft's files together stay within 000's limits (each upload is checked on its own as it streams). */
async function checkTotals(w: Work, ctx: Context, id: string): Promise<void> {
  const { maxFiles, maxTotalBytes } = faxFiles.FAX.rules;
  const files = await filesOf(w.db, ctx.scope, FAX_FILES, [id]);
  if (files.length > maxFiles) throw new ApiError('TOO_MANY_FILES', { maxFiles });
  if (files.reduce((sum, file) => sum + Number(file.size), 0) > maxTotalBytes)
    throw new ApiError('TOO_MANY_FILES', { maxTotalBytes });
}

function touch(w: Work, ctx: Context, fax: FaxRow, changedFields: string[]) {
  w.changed({ action: 'FAX_UPDATED', entityType: 'FAX', entityId: fax.id, patientId: fax.patient_id, changedFields });
  return w.db
    .updateTable('faxes')
    .set(w.updated())
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('id', '=', fax.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** POST /faxes/{id}/files: multipart `files` parts, the draft answered with them (their ids delete them). */
export async function addFaxFiles(ctx: Context, request: FastifyRequest, id: string, origin: string): Promise<FaxView> {
  const fax = await requireFax(ctx, id);
  if (fax.status !== 'DRAFT') throw new ApiError('FAX_NOT_DRAFT', { faxId: id, status: fax.status });
  const keyPrefix = `${ctx.tenant.name}/${ctx.instance.name}/faxes/${id}`;
  const row = await attachFiles(ctx, request, { kind: FAX_FILES, id, keyPrefix }, async (w) => {
    const current = await requireFax(ctx, id, w.db, true);
    if (current.status !== 'DRAFT') throw new ApiError('FAX_NOT_DRAFT', { faxId: id, status: current.status });
    await checkTotals(w, ctx, id);
    return touch(w, ctx, current, ['files']);
  });
  return one(ctx, row, origin);
}

/** DELETE /faxes/{id}/files/{fileId} (200, empty): a draft's file. */
export async function deleteFaxFile(ctx: Context, id: string, fileId: string): Promise<void> {
  await write(ctx, async (w) => {
    const fax = await requireFax(ctx, id, w.db, true);
    if (fax.status !== 'DRAFT') throw new ApiError('FAX_NOT_DRAFT', { faxId: id, status: fax.status });
    const files = await filesOf(w.db, ctx.scope, FAX_FILES, [id]);
    if (!files.some((file) => file.id === fileId)) throw new ApiError('FILE_NOT_FOUND', { fileId });
    await deleteFiles(w, ctx.scope, [fileId]);
    await touch(w, ctx, fax, ['files']);
  });
}

/**
 * A purged patient's faxes go, files and sandbox copies too: the purge erases what the delete keeps
 * as the practice's record, since the fax's document is about the patient (docs/patient-purge.md).
 */
export async function purgePatientFaxes(w: Work, scope: PatientScope, patient: PurgedPatient): Promise<void> {
  const ids = await forgetSandboxCopies(w, scope, 'faxes', patient.id);
  if (ids.length === 0) return;
  const files = await filesOf(w.db, scope, FAX_FILES, ids);
  await deleteFiles(
    w,
    scope,
    files.map((file) => file.id),
  );
  await w.db.deleteFrom('faxes').where('tenant_id', '=', scope.tenantId).where('id', 'in', ids).execute();
}
