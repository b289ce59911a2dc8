import { SegmentedMessage } from 'sms-segments-calculator';
import type { Scope } from '../../db/scope.ts';
import type { Work } from '../../events/work.ts';
import { linkIssue } from '../../files/links.ts';
import { filesOf } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import { callbackBase, publicUrl } from '../../http/provider-callbacks.ts';
import type { Services } from '../../http/services.ts';
import { ProviderError, type StatusReport } from '../../providers/channels.ts';
import { smsSlot } from '../../providers/sms/sms.ts';
import { moveMessageStatus, outboundMessageFields } from '../../records/messages.ts';
import { careTeamNames, type Recipient } from '../../records/recipients.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { SMS_FILES } from './messages.ts';
import type { SmsStatus } from './schemas.ts';
import { findSmsByExternalId, type SmsRow } from './store.ts';

/**
 * Sending an SMS (002 "Communications", DECISIONS §8): the message is stored, then handed to the
 * instance's SMS driver at once; the answer carries what the provider said. A provider failure
 * answers 500 PROVIDER_FAILED and leaves the message FAILED with the provider's words. The
 * provider's later reports (sent, delivered, undelivered) move it on.
 */

/** The longest SMS text: Twilio's limit on a message body, which carriers carry as up to 10 segments or so. */
export const SMS_MAX_LENGTH = 1600;

/**
 * An SMS text longer than any provider carries is a 400 (VALIDATION_ERROR at `path`), checked before
 * anything is stored; it also bounds `partsOf`, whose calculator takes quadratic time (minutes at 100 000).
 */
export function checkSmsText(text: string, path = 'body.message'): void {
  if (text.length > SMS_MAX_LENGTH) {
    throw validationError([{ path, message: `must be at most ${SMS_MAX_LENGTH} characters for an SMS` }]);
  }
}

/** The segments a text takes, by Twilio's own calculator (GSM-7: 160, 153 each when split; else UCS-2: 70, 67). */
export function partsOf(text: string): number {
  return text.length === 0 ? 1 : new SegmentedMessage(text).segmentsCount;
}

export interface OutboundSms {
  id: string;
  recipient: Recipient;
  /** The number it goes to (E.164). */
  to: string;
  /** The instance phone it goes from (formation `instancePhones`). */
  phone: { id: string; number: string };
  message: string;
  attachmentsFromTemplate: Record<string, unknown>[];
}

/** Stores an outbound SMS, ACCEPTED, in the caller's write (which inserts its attachments too). */
export async function recordOutboundSms(w: Work, ctx: Context, sms: OutboundSms): Promise<SmsRow> {
  checkSmsText(sms.message);
  const { patient } = sms.recipient;
  const careTeam = await careTeamNames(w.db, ctx.scope.tenantId, patient.id);
  const row = await w.db
    .insertInto('sms_messages')
    .values({
      tenant_id: ctx.scope.tenantId,
      instance_id: ctx.scope.instanceId,
      id: sms.id,
      ...outboundMessageFields(ctx.actor, sms.recipient, { from: sms.phone.number, to: sms.to, careTeam, date: w.now }),
      status: 'ACCEPTED',
      message: sms.message,
      parts: partsOf(sms.message),
      phone_id: sms.phone.id,
      attachments_from_template: JSON.stringify(sms.attachmentsFromTemplate),
      ...w.created(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  w.changed({ action: 'SMS_SENT', entityType: 'SMS', entityId: sms.id, patientId: patient.id });
  return row;
}

/** Hands a stored SMS to the instance's driver now; answers the message as it then is, or throws 500 PROVIDER_FAILED. */
export async function deliverSms(ctx: Context, row: SmsRow): Promise<SmsRow> {
  const { services } = ctx;
  const files = await filesOf(ctx.db, ctx.scope, SMS_FILES, [row.id]);
  // The vendor fetches attachments itself, by links to this server's public address.
  const origin = publicUrl(services, '');
  let move: Parameters<typeof moveMessageStatus>[4];
  try {
    const { use: driver } = await services.providers.for(smsSlot, ctx.scope);
    const issue = origin === null ? null : linkIssue(origin, services.clock.now(), ctx.actor);
    const attachments = files.map((file) => ({
      fileName: file.original_name,
      url: issue === null ? null : services.files.withLink(file, issue).url,
    }));
    const sent = await driver.send(ctx.scope, {
      id: row.id,
      patientId: row.patient_id,
      from: row.from_address,
      to: row.to_address,
      body: row.message,
      attachments,
      callbackBase: callbackBase(services, ctx.tenant.name, ctx.instance.name, 'sms'),
    });
    move = { status: sent.status, externalId: sent.externalId, sentAt: services.clock.now(), errorMessage: null };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await moveMessageStatus(ctx, 'sms_messages', 'SMS', row, { status: 'FAILED', errorMessage: error.message });
    throw new ApiError('PROVIDER_FAILED', { id: row.id, code: error.code });
  }
  await moveMessageStatus(ctx, 'sms_messages', 'SMS', row, move);
  return { ...row, status: move.status, external_id: move.externalId ?? null, sent_at: move.sentAt ?? null };
}

/** How far each status is along the way: a report only moves a message on (Twilio's reports may arrive out of order). */
const progress: Partial<Record<SmsStatus, number>> = {
  SCHEDULED: 0,
  ACCEPTED: 1,
  SENT: 2,
  DELIVERED: 3,
  UNDELIVERED: 3,
  FAILED: 3,
};

/** The sandbox's outcomes, in an SMS's words. */
export const smsSandboxOutcomes = { deliver: 'DELIVERED', bounce: 'UNDELIVERED', fail: 'FAILED' } as const;

/** The SMS channel's `report`: a provider's word on a message it was given; false when no message has that id. */
export async function reportSmsStatus(services: Services, scope: Scope, report: StatusReport): Promise<boolean> {
  const sms = await findSmsByExternalId(services.db, scope, report.externalId);
  if (!sms) return false;
  const before = progress[sms.status as SmsStatus];
  const after = progress[report.status as SmsStatus];
  if (before === undefined || after === undefined || after <= before) return true;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:sms');
  if (!ctx) return false;
  const failed = report.status === 'UNDELIVERED' || report.status === 'FAILED';
  await moveMessageStatus(ctx, 'sms_messages', 'SMS', sms, {
    status: report.status,
    errorMessage: failed ? (report.error ?? null) : null,
  });
  return true;
}
