import { linkIssue } from '../../files/links.ts';
import { filesOf } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import { type Paging, parseSort } from '../../http/pagination.ts';
import { messageRecordView } from '../../records/messages.ts';
import { recipientOf, recipientScope } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import type { EmailListFilters, EmailStatus, EmailView } from './schemas.ts';
import { type EmailRow, findEmail, listEmails, sortableEmailFields } from './store.ts';

/** Emails (002 "Email", DECISIONS §7 and §8): a patient's (or a contact's) list and one by id. */

export const EMAIL_FILES = 'EMAIL';

/** Rows as the API shows them, with their attachments' fresh links (one statement for the page's files). */
export async function emailViews(ctx: Context, rows: EmailRow[], origin: string): Promise<EmailView[]> {
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    EMAIL_FILES,
    rows.map((row) => row.id),
  );
  const linked = ctx.services.files.withLinksByOwner(files, linkIssue(origin, ctx.services.clock.now(), ctx.actor));
  return rows.map((row) => ({
    ...messageRecordView(row),
    subject: row.subject,
    body: row.body,
    bodyType: row.body_type,
    status: row.status as EmailStatus,
    secure: row.secure,
    priority: row.priority,
    templateName: row.template_name,
    attachments: linked.get(row.id) ?? [],
  }));
}

export async function listPatientEmails(
  ctx: Context,
  recipientId: string,
  filters: EmailListFilters,
  paging: Paging,
  sort: string | string[] | undefined,
  origin: string,
) {
  const recipient = await recipientOf(ctx, recipientId);
  const keys = parseSort(sort, sortableEmailFields);
  const { rows, total } = await listEmails(ctx.db, recipientScope(ctx, recipient), filters, paging, keys);
  return { content: await emailViews(ctx, rows, origin), total, sorted: keys.length > 0 };
}

/** GET .../emails/{id}: 404 EMAIL_NOT_FOUND (PROD-SHAPES: details {patientId, id}). */
export async function getEmail(ctx: Context, recipientId: string, emailId: string, origin: string): Promise<EmailView> {
  const recipient = await recipientOf(ctx, recipientId);
  const row = await findEmail(ctx.db, recipientScope(ctx, recipient), emailId);
  if (!row) throw new ApiError('EMAIL_NOT_FOUND', { patientId: recipientId, id: emailId });
  return (await emailViews(ctx, [row], origin))[0] as EmailView;
}
