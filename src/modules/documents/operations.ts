import type { FastifyRequest } from 'fastify';
import type { Work } from '../../events/work.ts';
import { sendFile } from '../../files/download.ts';
import { fileEntry } from '../../files/files.ts';
import { linkIssue } from '../../files/links.ts';
import { deleteFiles, deleteFilesOf, type FileRow, filesOf, findFile } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import { pageObject, parseSort } from '../../http/pagination.ts';
import { attachFiles } from '../../records/attachments.ts';
import { Records } from '../../records/handle.ts';
import { listRecordPage, sortableRecordFields } from '../../records/list.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import type { SummaryCreateInput, SummaryListQueryInput, SummaryUpdateInput } from './schemas.ts';
import { typeRecordsOf } from './store.ts';
import { DOCUMENT_SUMMARY, documentSummary, documentTypeRecord, findDocumentType, SUMMARY_FILES } from './types.ts';
import { entriesByOwner, summaryView, summaryViews } from './views.ts';

/**
 * Document summaries (001 "Documents"): CDT records of `_document_summary` with files in the
 * files mechanism, and at most one document type record each. Writes hold the patient
 * (`withPatient`); files are attached through `attachFiles`, and a removed file's blob goes by
 * the job its row's delete enqueues.
 */

export async function listSummaries(ctx: Context, patientId: string, query: SummaryListQueryInput, links?: { origin: string }) {
  const records = await Records.system(ctx, documentSummary);
  await requirePatient(ctx, patientId);
  const sort = parseSort(query.sort, sortableRecordFields(records.type.fieldNames));
  const paging = { page: query.page, size: query.size };
  const { rows, total } = await listRecordPage(ctx.db, ctx.scope, {
    cdtName: DOCUMENT_SUMMARY,
    patientId,
    paging,
    sort,
    ...(query.sourceId ? { sourceId: query.sourceId } : {}),
  });
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    SUMMARY_FILES,
    rows.map((row) => row.id),
  );
  const byOwner = links
    ? ctx.services.files.withLinksByOwner(files, linkIssue(links.origin, ctx.services.clock.now(), ctx.actor))
    : entriesByOwner(files);
  return { name: DOCUMENT_SUMMARY, data: pageObject(summaryViews(rows, byOwner), total, paging, sort.length > 0) };
}

export async function getSummary(ctx: Context, patientId: string, id: string, links?: { origin: string }) {
  const records = await Records.system(ctx, documentSummary);
  await requirePatient(ctx, patientId);
  const row = await records.require(ctx.db, id, { patientId });
  const files = await filesOf(ctx.db, ctx.scope, SUMMARY_FILES, [row.id]);
  if (!links) return summaryView(row, files.map(fileEntry));
  const now = ctx.services.clock.now();
  return summaryView(
    row,
    files.map((file) => ctx.services.files.withLink(file, linkIssue(links.origin, now, ctx.actor))),
  );
}

export async function createSummary(ctx: Context, patientId: string, body: SummaryCreateInput) {
  const records = await Records.system(ctx, documentSummary);
  const values = records.values({ type: body.type });
  await requireDocumentType(ctx, body.type);
  const source = body.sourceId ? { type: body.sourceType ?? '', id: body.sourceId, name: body.sourceName ?? '' } : undefined;
  return withPatient(ctx, patientId, async (w) => {
    const row = await records.create(w, values, { patientId, ...(source ? { source } : {}) });
    return summaryView(row, []);
  });
}

export async function updateSummary(ctx: Context, patientId: string, id: string, body: SummaryUpdateInput) {
  const records = await Records.system(ctx, documentSummary);
  const values = records.values({ type: body.type });
  await requireDocumentType(ctx, body.type);
  return withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    const row = await records.require(trx, id, { patientId, forUpdate: true });
    if ((row.values as { type?: string }).type !== body.type && (await typeRecordsOf(trx, ctx.scope, patientId, id)).length > 0) {
      throw validationError([
        { path: 'body.type', message: 'the summary has a document type record: delete it before changing the type' },
      ]);
    }
    const files = await filesOf(trx, ctx.scope, SUMMARY_FILES, [id]);
    const kept = body.files === undefined ? files : keptFiles(files, body.files ?? []);
    const removed = files.filter((file) => !kept.includes(file));
    await deleteFiles(
      w,
      ctx.scope,
      removed.map((file) => file.id),
    );
    const updated = await records.replace(w, row, values);
    if (removed.length > 0) filesChanged(w, 'DOCUMENT_FILES_REMOVED', patientId, id, removed);
    return summaryView(updated, kept.map(fileEntry));
  });
}

/** The files a PUT keeps: each must be one of the summary's own (400 naming the entry otherwise). */
function keptFiles(files: readonly FileRow[], listed: readonly { id: string }[]): FileRow[] {
  const ids = new Set(files.map((file) => file.id));
  const problems: FieldError[] = listed.flatMap((entry, index) =>
    ids.has(entry.id.toLowerCase())
      ? []
      : [{ path: `body.files.${index}.id`, message: 'is not a file of this document summary' }],
  );
  if (problems.length > 0) throw validationError(problems);
  const keep = new Set(listed.map((entry) => entry.id.toLowerCase()));
  return files.filter((file) => keep.has(file.id));
}

export async function deleteSummary(ctx: Context, patientId: string, id: string): Promise<void> {
  const records = await Records.system(ctx, documentSummary);
  await withPatient(ctx, patientId, async (w) => {
    const row = await records.require(w.db, id, { patientId, forUpdate: true });
    for (const typeRecord of await typeRecordsOf(w.db, ctx.scope, patientId, id, { forUpdate: true })) {
      const typeRecords = await Records.system(ctx, documentTypeRecord(typeRecord.cdt_name));
      await typeRecords.remove(w, typeRecord);
    }
    await deleteFilesOf(w, ctx.scope, SUMMARY_FILES, id);
    await records.remove(w, row);
  });
}

/**
 * DECISIONS §7: files arrive as multipart parts named `files`. The summary is checked before any
 * byte is stored; the files are recorded with the summary's new version in one write.
 */
export async function addFiles(ctx: Context, request: FastifyRequest, patientId: string, id: string) {
  const records = await Records.system(ctx, documentSummary);
  await requirePatient(ctx, patientId);
  await records.require(ctx.db, id, { patientId });
  const keyPrefix = `${ctx.tenant.name}/${ctx.instance.name}/patients/${patientId}/documents`;
  return attachFiles(ctx, request, { kind: SUMMARY_FILES, id, patientId, keyPrefix }, async (w, files) => {
    const row = await records.require(w.db, id, { patientId, forUpdate: true });
    await records.change(w, row, {});
    filesChanged(w, 'DOCUMENT_FILES_ADDED', patientId, id, files);
    return files.map(fileEntry);
  });
}

export async function downloadFile(
  ctx: Context,
  request: FastifyRequest,
  reply: Parameters<typeof sendFile>[1],
  patientId: string,
  id: string,
  fileId: string,
) {
  const records = await Records.system(ctx, documentSummary);
  await requirePatient(ctx, patientId);
  await records.require(ctx.db, id, { patientId });
  const file = await findFile(ctx.db, ctx.scope, fileId);
  if (!file || file.owner_kind !== SUMMARY_FILES || file.owner_id !== id) throw new ApiError('FILE_NOT_FOUND', { fileId });
  return sendFile(request, reply, ctx.services.files.blobs, file);
}

/** The type must be one of the formation's document types (the three defaults always are). */
async function requireDocumentType(ctx: Context, name: string): Promise<void> {
  if (!findDocumentType(await ctx.formation(), name)) {
    throw validationError([{ path: 'body.type', message: `no document type "${name}" in the formation` }]);
  }
}

function filesChanged(
  w: Work,
  action: 'DOCUMENT_FILES_ADDED' | 'DOCUMENT_FILES_REMOVED',
  patientId: string,
  summaryId: string,
  files: readonly FileRow[],
): void {
  w.changed({
    action,
    entityType: 'CDT_RECORD',
    entityId: summaryId,
    patientId,
    changedFields: files.map((file) => file.id),
    about: { cdtName: DOCUMENT_SUMMARY },
  });
}
