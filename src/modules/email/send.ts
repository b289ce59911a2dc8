import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../db/scope.ts';
import type { Work } from '../../events/work.ts';
import { filesOf, moveFiles } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import type { Services } from '../../http/services.ts';
import type { ClaimedJob } from '../../jobs/kinds.ts';
import { ProviderError, type StatusReport } from '../../providers/channels.ts';
import { emailSlot } from '../../providers/email/email.ts';
import { moveMessageStatus, noteSendError, type StatusMove } from '../../records/messages.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { careTeamNames, patientName, type Recipient, recipientOf } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { DRAFT_FILES, requireDraft } from './drafts.ts';
import { EMAIL_FILES, emailViews } from './emails.ts';
import type { EmailStatus, EmailView } from './schemas.ts';
import { type EmailRow, findEmailByExternalId, findEmailById } from './store.ts';

/**
 * Sending (DECISIONS §8): a draft becomes an email, stored and queued in one transaction, and the
 * API answers then; the `email.send` job hands it to the instance's email driver at once or at
 * `scheduledAt`, and moves its status: ACCEPTED (the sandbox, which reports later) or DELIVERED
 * (an SMTP relay took it), REJECTED when the provider refuses it for good, FAILED when every
 * attempt failed. A provider's later word (a bounce) arrives through the channel's `report`.
 */

export const SEND_EMAIL = 'email.send';
/** Attempts before an email is FAILED: waits of 30 s doubling to an hour put the last about 9 to 18 hours after the first. */
export const SEND_ATTEMPTS = 14;
export const SEND_BACKOFF = { baseMs: 30_000, maxMs: 60 * 60_000 };

/** An outbound email, as the send of a draft or the communication send writes it. */
export interface OutboundEmail {
  id: string;
  recipient: Recipient;
  /** The instance's sending address (emailFrom, read before the write: the write holds the connection). */
  from: string;
  to: string;
  subject: string | null;
  body: string | null;
  bodyType: string;
  secure: boolean;
  /** Ahead: SCHEDULED until then. */
  scheduledAt: Date | null;
  /** Who wrote it (a draft's author), when not the caller. */
  sender?: { id: string | null; name: string | null };
  starred?: boolean;
  priority?: string;
  source?: string;
  templateName?: string | null;
  attachmentsFromTemplate: unknown[];
}

/** The address the instance's email comes from (its driver's `from`). */
export async function emailFrom(ctx: Context): Promise<string> {
  return (await ctx.services.providers.for(emailSlot, ctx.scope)).use.from.address;
}

/** Stores an outbound email, ACCEPTED (SCHEDULED while its time is ahead), in the caller's write. */
export async function recordOutboundEmail(w: Work, ctx: Context, email: OutboundEmail): Promise<EmailRow> {
  const { patient, contact } = email.recipient;
  const careTeam = await careTeamNames(w.db, ctx.scope.tenantId, patient.id);
  // A time already past sends at once (a draft waited longer than its author meant).
  const later = email.scheduledAt !== null && email.scheduledAt > w.now ? email.scheduledAt : null;
  const row = await w.db
    .insertInto('emails')
    .values({
      tenant_id: ctx.scope.tenantId,
      instance_id: ctx.scope.instanceId,
      id: email.id,
      patient_id: patient.id,
      contact_id: contact?.id ?? null,
      direction: 'OUT',
      status: later ? 'SCHEDULED' : 'ACCEPTED',
      subject: email.subject,
      body: email.body,
      body_type: email.bodyType,
      secure: email.secure,
      from_address: email.from,
      to_address: email.to,
      sender: email.sender?.id ?? ctx.actor.id,
      sender_type: ctx.actor.type,
      sender_name: email.sender?.name ?? ctx.actor.name,
      receiver: contact?.id ?? patient.id,
      receiver_type: contact ? 'CONTACT' : 'PATIENT',
      receiver_name: contact ? contact.name : patientName(patient),
      care_team: careTeam,
      patient_info: patientName(patient),
      timezone: patient.timezone,
      scheduled_at: email.scheduledAt,
      sent_at: null,
      received_at: null,
      date: later ?? w.now,
      external_id: null,
      error_message: null,
      skip_event: false,
      starred: email.starred ?? false,
      priority: email.priority ?? 'NO_PRIORITY',
      source: email.source ?? 'USER',
      template_name: email.templateName ?? null,
      message_type: 'CARE_TEAM',
      attachments_from_template: JSON.stringify(email.attachmentsFromTemplate),
      ...w.created(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  w.changed({ action: 'EMAIL_SENT', entityType: 'EMAIL', entityId: email.id, patientId: patient.id });
  return row;
}

/** POST .../email-drafts/{id}/send: the email (200), the draft gone, its files now the email's, the send queued. */
export async function sendEmailDraft(ctx: Context, recipientId: string, draftId: string, origin: string): Promise<EmailView> {
  const recipient = await recipientOf(ctx, recipientId);
  const from = await emailFrom(ctx);
  const row = await withPatient(ctx, recipient.patient.id, async (w) => {
    const draft = await requireDraft(ctx, recipient, draftId, w.db, true);
    if (!draft.patient_email) throw new ApiError('EMAIL_ADDRESS_MISSING', { patientId: recipientId, id: draftId });
    const email = await recordOutboundEmail(w, ctx, {
      id: uuidv7(),
      recipient,
      from,
      to: draft.patient_email,
      subject: draft.subject,
      body: draft.body,
      bodyType: draft.body_type,
      secure: draft.secure,
      scheduledAt: draft.scheduled_at ? new Date(draft.scheduled_at) : null,
      sender: { id: draft.sender, name: draft.sender_name },
      starred: draft.starred,
      priority: draft.priority,
      source: draft.source,
      templateName: draft.template_name,
      attachmentsFromTemplate: draft.attachments_from_template,
    });
    await moveFiles(w.db, ctx.scope, { kind: DRAFT_FILES, id: draft.id }, { kind: EMAIL_FILES, id: email.id });
    await w.db.deleteFrom('email_drafts').where('tenant_id', '=', ctx.scope.tenantId).where('id', '=', draft.id).execute();
    w.changed({ action: 'EMAIL_DRAFT_SENT', entityType: 'EMAIL_DRAFT', entityId: draft.id, patientId: recipient.patient.id });
    w.enqueue({
      kind: SEND_EMAIL,
      payload: { emailId: email.id },
      ...(email.status === 'SCHEDULED' ? { runAt: new Date(email.date) } : {}),
    });
    return email;
  });
  return (await emailViews(ctx, [row], origin))[0] as EmailView;
}

/** One attempt to hand an email to its instance's driver: where it takes the email. Throws what the driver threw. */
async function handOver(services: Services, scope: Scope, email: EmailRow): Promise<StatusMove> {
  const { use: driver } = await services.providers.for(emailSlot, scope);
  const files = await filesOf(services.db, scope, EMAIL_FILES, [email.id]);
  // Loaded by the first HTML email a process sends (~1 MB of heap), not at start.
  const { convert } = await import('html-to-text');
  const sent = await driver.send(scope, {
    id: email.id,
    patientId: email.patient_id,
    from: { address: email.from_address, name: driver.from.name },
    to: { address: email.to_address, name: email.receiver_name },
    subject: email.subject ?? '',
    // An HTML email carries a plain-text rendering too, for clients that show no HTML.
    text: email.body_type === 'HTML' ? convert(email.body ?? '', { wordwrap: 78 }) : email.body,
    html: email.body_type === 'HTML' ? email.body : null,
    attachments: files.map((file) => ({
      fileName: file.original_name,
      contentType: file.content_type,
      open: () => services.files.blobs.get(file.storage_key),
    })),
  });
  return { status: sent.status, externalId: sent.externalId, sentAt: services.clock.now(), errorMessage: null };
}

/**
 * Hands a stored email to its driver now (the communication send): answers the email as it then
 * is, or leaves it FAILED with the provider's words and throws 500 PROVIDER_FAILED (DECISIONS §8).
 */
export async function deliverEmail(ctx: Context, email: EmailRow): Promise<EmailRow> {
  let move: StatusMove;
  try {
    move = await handOver(ctx.services, ctx.scope, email);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await moveMessageStatus(ctx, 'emails', 'EMAIL', email, { status: 'FAILED', errorMessage: error.message });
    throw new ApiError('PROVIDER_FAILED', { id: email.id, code: error.code });
  }
  await moveMessageStatus(ctx, 'emails', 'EMAIL', email, move);
  return { ...email, status: move.status, external_id: move.externalId ?? null, sent_at: move.sentAt ?? null };
}

/** The `email.send` job: one attempt to hand an email to its instance's driver; retried until it is taken, refused or out of attempts. */
export async function runSendEmail(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const email = await findEmailById(services.db, scope, String(job.payload.emailId));
  // Gone with its patient, or sent already (the job ran again after its process died).
  if (!email || email.external_id !== null || (email.status !== 'ACCEPTED' && email.status !== 'SCHEDULED')) return 0;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:email');
  if (!ctx) return 0;
  let outcome: StatusMove;
  try {
    outcome = await handOver(services, scope, email);
  } catch (error) {
    const last = job.attempt >= SEND_ATTEMPTS;
    const provider = error instanceof ProviderError ? error : null;
    if (!provider?.permanent && !last) {
      // Retried: the record says why it is still waiting.
      if (provider) await noteSendError(ctx, 'emails', email, provider.message);
      throw error;
    }
    outcome = {
      status: provider?.permanent ? 'REJECTED' : 'FAILED',
      // Anything but the provider's own word stays in the logs, not on the record.
      errorMessage: provider?.message ?? 'The email could not be sent',
    };
  }
  await moveMessageStatus(ctx, 'emails', 'EMAIL', email, outcome);
  return 1;
}

/** The statuses a provider's report moves an email to, from where: a bounce may follow the relay's acceptance. */
const reportedFrom: Partial<Record<EmailStatus, readonly string[]>> = {
  DELIVERED: ['ACCEPTED'],
  REJECTED: ['ACCEPTED', 'DELIVERED'],
  FAILED: ['ACCEPTED'],
};

/** The sandbox's outcomes, in an email's words. */
export const emailSandboxOutcomes = { deliver: 'DELIVERED', bounce: 'REJECTED', fail: 'FAILED' } as const;

/** The email channel's `report`: a provider's word on an email it was given; false when no email has that id. */
export async function reportEmailStatus(services: Services, scope: Scope, report: StatusReport): Promise<boolean> {
  const email = await findEmailByExternalId(services.db, scope, report.externalId);
  if (!email) return false;
  const status = report.status as EmailStatus;
  if (!reportedFrom[status]?.includes(email.status)) return true;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:email');
  if (!ctx) return false;
  await moveMessageStatus(ctx, 'emails', 'EMAIL', email, {
    status,
    errorMessage: status === 'DELIVERED' ? null : (report.error ?? null),
  });
  return true;
}
