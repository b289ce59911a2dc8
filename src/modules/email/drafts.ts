import type { FastifyRequest } from 'fastify';
import { uuidv7 } from '../../db/ids.ts';
import type { RowUpdate } from '../../db/schema.ts';
import { linkIssue } from '../../files/links.ts';
import { deleteFilesOf, filesOf } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import { type Paging, parseSort } from '../../http/pagination.ts';
import { attachFiles } from '../../records/attachments.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { patientName, type Recipient, recipientOf, recipientScope } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { DraftInputBody, EmailDraftView } from './schemas.ts';
import { type DraftRow, findDraft, listDrafts, sortableDraftFields } from './store.ts';

/**
 * Email drafts (002 "Email draft", DECISIONS §8) of a patient, or of one of the patient's
 * contacts: the contact's id stands where the patient's does, and the contact is the receiver.
 * HTML bodies are sanitized (sanitize-html) before they are stored.
 */

export const DRAFT_FILES = 'EMAIL_DRAFT';

/** An HTML body keeps formatting, links and images, never scripts, handlers or `javascript:` links. */
export async function cleanBody(body: string | null | undefined, bodyType: string): Promise<string | null> {
  if (body === undefined || body === null) return null;
  if (bodyType !== 'HTML') return body;
  // Loaded by the first HTML body, not by every serving process (~2 MB of heap with its parser).
  const { default: sanitizeHtml } = await import('sanitize-html');
  return sanitizeHtml(body, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'span', 'font'],
    allowedAttributes: { ...sanitizeHtml.defaults.allowedAttributes, '*': ['style'], img: ['src', 'alt', 'width', 'height'] },
    allowedSchemes: ['https', 'mailto', 'cid', 'data'],
  });
}

const instantOrNull = (value: string | Date | null | undefined) => (value ? readInstant(value) : null);

async function views(ctx: Context, rows: DraftRow[], recipient: Recipient, origin: string): Promise<EmailDraftView[]> {
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    DRAFT_FILES,
    rows.map((row) => row.id),
  );
  const now = ctx.services.clock.now();
  const linked = ctx.services.files.withLinksByOwner(files, linkIssue(origin, now, ctx.actor));
  const { patient, contact } = recipient;
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.created_at,
    date: row.draft_date,
    subject: row.subject,
    body: row.body,
    emailEditorJson: row.email_editor_json,
    scheduledAt: row.scheduled_at,
    sender: row.sender,
    receiver: contact?.id ?? patient.id,
    patientEmail: row.patient_email,
    secure: row.secure,
    attachments: linked.get(row.id) ?? [],
    attachmentsFromTemplate: row.attachments_from_template as Record<string, unknown>[],
    bodyAttachments: [],
    priority: row.priority,
    source: row.source,
    templateName: row.template_name,
    bodyType: row.body_type,
    senderName: row.sender_name,
    receiverName: contact ? contact.name : patientName(patient),
    status: row.status,
    starred: row.starred,
  }));
}

/** The columns a body sets (PATCH: only those given). */
async function columnsOf(body: DraftInputBody, current: { body_type: string } | undefined): Promise<RowUpdate<'email_drafts'>> {
  const bodyType = body.bodyType ?? current?.body_type ?? 'PLAIN_TEXT';
  const columns: RowUpdate<'email_drafts'> = {};
  if (body.date !== undefined) columns.draft_date = instantOrNull(body.date);
  if (body.subject !== undefined) columns.subject = body.subject;
  if (body.body !== undefined) columns.body = await cleanBody(body.body, bodyType);
  if (body.bodyType !== undefined) columns.body_type = bodyType;
  if (body.emailEditorJson !== undefined)
    columns.email_editor_json = body.emailEditorJson === null ? null : JSON.stringify(body.emailEditorJson);
  if (body.scheduledAt !== undefined) columns.scheduled_at = instantOrNull(body.scheduledAt);
  if (body.patientEmail !== undefined) columns.patient_email = body.patientEmail;
  if (body.secure !== undefined) columns.secure = body.secure;
  if (body.attachmentsFromTemplate !== undefined)
    columns.attachments_from_template = JSON.stringify(body.attachmentsFromTemplate);
  if (body.priority !== undefined) columns.priority = body.priority;
  if (body.templateName !== undefined) columns.template_name = body.templateName;
  if (body.starred !== undefined) columns.starred = body.starred;
  return columns;
}

export async function listEmailDrafts(
  ctx: Context,
  recipientId: string,
  paging: Paging,
  sort: string | string[] | undefined,
  origin: string,
) {
  const recipient = await recipientOf(ctx, recipientId);
  const keys = parseSort(sort, sortableDraftFields);
  const { rows, total } = await listDrafts(ctx.db, recipientScope(ctx, recipient), paging, keys);
  return { content: await views(ctx, rows, recipient, origin), total, sorted: keys.length > 0 };
}

export async function requireDraft(ctx: Context, recipient: Recipient, draftId: string, db = ctx.db, forUpdate = false) {
  const row = await findDraft(db, { ...ctx.scope, patientId: recipient.patient.id }, draftId, forUpdate);
  // A contact's draft is read through the contact's id only, and a patient's through the patient's.
  if (!row || row.contact_id !== (recipient.contact?.id ?? null)) {
    throw new ApiError('EMAIL_DRAFT_NOT_FOUND', { patientId: recipient.contact?.id ?? recipient.patient.id, id: draftId });
  }
  return row;
}

export async function getEmailDraft(ctx: Context, recipientId: string, draftId: string, origin: string) {
  const recipient = await recipientOf(ctx, recipientId);
  const [view] = await views(ctx, [await requireDraft(ctx, recipient, draftId)], recipient, origin);
  return view as EmailDraftView;
}

/** POST: 201 with the draft, status WAITING, the caller its sender (002). */
export async function createEmailDraft(ctx: Context, recipientId: string, body: DraftInputBody, origin: string) {
  const recipient = await recipientOf(ctx, recipientId);
  const id = uuidv7();
  const row = await withPatient(ctx, recipient.patient.id, async (w) => {
    const inserted = await w.db
      .insertInto('email_drafts')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        id,
        patient_id: recipient.patient.id,
        contact_id: recipient.contact?.id ?? null,
        body_type: 'PLAIN_TEXT',
        priority: 'NO_PRIORITY',
        source: 'USER',
        status: 'WAITING',
        sender: ctx.actor.id,
        sender_name: ctx.actor.name,
        patient_email: recipient.contact ? recipient.contact.email : recipient.patient.email,
        secure: false,
        starred: false,
        attachments_from_template: '[]',
        ...(await columnsOf(body, undefined)),
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'EMAIL_DRAFT_CREATED',
      entityType: 'EMAIL_DRAFT',
      entityId: id,
      patientId: recipient.patient.id,
      changedFields: Object.keys(body),
    });
    return inserted;
  });
  return (await views(ctx, [row], recipient, origin))[0] as EmailDraftView;
}

export async function updateEmailDraft(ctx: Context, recipientId: string, draftId: string, body: DraftInputBody, origin: string) {
  const recipient = await recipientOf(ctx, recipientId);
  const row = await withPatient(ctx, recipient.patient.id, async (w) => {
    const existing = await requireDraft(ctx, recipient, draftId, w.db, true);
    const updated = await w.db
      .updateTable('email_drafts')
      .set({ ...(await columnsOf(body, existing)), ...w.updated() })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'EMAIL_DRAFT_UPDATED',
      entityType: 'EMAIL_DRAFT',
      entityId: existing.id,
      patientId: recipient.patient.id,
      changedFields: Object.keys(body),
    });
    return updated;
  });
  return (await views(ctx, [row], recipient, origin))[0] as EmailDraftView;
}

/** DELETE (200, empty): the draft and its files (their blobs by the jobs the delete queues). */
export async function deleteEmailDraft(ctx: Context, recipientId: string, draftId: string): Promise<void> {
  const recipient = await recipientOf(ctx, recipientId);
  await withPatient(ctx, recipient.patient.id, async (w) => {
    const existing = await requireDraft(ctx, recipient, draftId, w.db, true);
    await deleteFilesOf(w, ctx.scope, DRAFT_FILES, existing.id);
    await w.db.deleteFrom('email_drafts').where('tenant_id', '=', ctx.scope.tenantId).where('id', '=', existing.id).execute();
    w.changed({
      action: 'EMAIL_DRAFT_DELETED',
      entityType: 'EMAIL_DRAFT',
      entityId: existing.id,
      patientId: recipient.patient.id,
    });
  });
}

/** POST .../email-drafts/{id}: files in `attachmentsAsFiles` parts, answered with the draft. */
export async function addDraftFiles(ctx: Context, request: FastifyRequest, recipientId: string, draftId: string, origin: string) {
  const recipient = await recipientOf(ctx, recipientId);
  await requireDraft(ctx, recipient, draftId);
  const keyPrefix = `${ctx.tenant.name}/${ctx.instance.name}/patients/${recipient.patient.id}/email-drafts`;
  const row = await attachFiles(
    ctx,
    request,
    { kind: DRAFT_FILES, id: draftId, patientId: recipient.patient.id, keyPrefix },
    async (w, files) => {
      const draft = await requireDraft(ctx, recipient, draftId, w.db, true);
      const touched = await w.db
        .updateTable('email_drafts')
        .set(w.updated())
        .where('tenant_id', '=', ctx.scope.tenantId)
        .where('id', '=', draft.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      w.changed({
        action: 'EMAIL_DRAFT_UPDATED',
        entityType: 'EMAIL_DRAFT',
        entityId: draft.id,
        patientId: recipient.patient.id,
        changedFields: files.length > 0 ? ['attachments'] : [],
      });
      return touched;
    },
    { field: 'attachmentsAsFiles' },
  );
  return (await views(ctx, [row], recipient, origin))[0] as EmailDraftView;
}
