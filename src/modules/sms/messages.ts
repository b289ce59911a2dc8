import { linkIssue } from '../../files/links.ts';
import { filesOf } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import { type Paging, parseSort } from '../../http/pagination.ts';
import { messageRecordView } from '../../records/messages.ts';
import { recipientOf, recipientScope } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import type { SmsListFilters, SmsStatus, SmsView } from './schemas.ts';
import { findSms, listSms, type SmsRow, sortableSmsFields } from './store.ts';

/** SMS (DECISIONS §7): a patient's (or a contact's) messages, and one by id. */

export const SMS_FILES = 'SMS';

/** Rows as the API shows them, with their attachments' fresh links (one statement for the page's files). */
export async function smsViews(ctx: Context, rows: SmsRow[], origin: string): Promise<SmsView[]> {
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    SMS_FILES,
    rows.map((row) => row.id),
  );
  const linked = ctx.services.files.withLinksByOwner(files, linkIssue(origin, ctx.services.clock.now(), ctx.actor));
  return rows.map((row) => ({
    ...messageRecordView(row),
    message: row.message,
    parts: row.parts,
    status: row.status as SmsStatus,
    phoneId: row.phone_id,
    attachments: linked.get(row.id) ?? [],
  }));
}

export async function listPatientSms(
  ctx: Context,
  recipientId: string,
  filters: SmsListFilters,
  paging: Paging,
  sort: string | string[] | undefined,
  origin: string,
) {
  const recipient = await recipientOf(ctx, recipientId);
  const keys = parseSort(sort, sortableSmsFields);
  const { rows, total } = await listSms(ctx.db, recipientScope(ctx, recipient), filters, paging, keys);
  return { content: await smsViews(ctx, rows, origin), total, sorted: keys.length > 0 };
}

/** GET .../sms/{id}: 404 SMS_NOT_FOUND (PROD-SHAPES: details {id}). */
export async function getSms(ctx: Context, recipientId: string, smsId: string, origin: string): Promise<SmsView> {
  const recipient = await recipientOf(ctx, recipientId);
  const row = await findSms(ctx.db, recipientScope(ctx, recipient), smsId);
  if (!row) throw new ApiError('SMS_NOT_FOUND', { id: smsId });
  return (await smsViews(ctx, [row], origin))[0] as SmsView;
}
