import { convert } from 'html-to-text';
import { v7 as uuidv7 } from 'uuid';
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
import { careTeamNames, patientName, recipientOf } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
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

/** POST .../email-drafts/{id}/send: the email (200), the draft gone, its files now the email's. */
export async function sendEmailDraft(ctx: Context, recipientId: string, draftId: string, origin: string): Promise<EmailView> {
  const recipient = await recipientOf(ctx, recipientId);
  const { patient, contact } = recipient;
  const { use: driver } = await ctx.services.providers.for(emailSlot, ctx.scope);
  const careTeam = await careTeamNames(ctx.db, ctx.scope.tenantId, patient.id);
  const row = await withPatient(ctx, patient.id, async (w) => {
    const draft = await requireDraft(ctx, recipient, draftId, w.db, true);
    if (!draft.patient_email) throw new ApiError('EMAIL_ADDRESS_MISSING', { patientId: recipientId, id: draftId });
    // A time already past sends at once (the draft waited longer than its author meant).
    const scheduledAt = draft.scheduled_at ? new Date(draft.scheduled_at) : null;
    const later = scheduledAt !== null && scheduledAt > w.now ? scheduledAt : null;
    const id = uuidv7();
    const email = await w.db
      .insertInto('emails')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        id,
        patient_id: patient.id,
        contact_id: contact?.id ?? null,
        direction: 'OUT',
        status: later ? 'SCHEDULED' : 'ACCEPTED',
        subject: draft.subject,
        body: draft.body,
        body_type: draft.body_type,
        secure: draft.secure,
        from_address: driver.from.address,
        to_address: draft.patient_email,
        sender: draft.sender ?? ctx.actor.id,
        sender_type: ctx.actor.type,
        sender_name: draft.sender_name ?? ctx.actor.name,
        receiver: contact?.id ?? patient.id,
        receiver_type: contact ? 'CONTACT' : 'PATIENT',
        receiver_name: contact ? contact.name : patientName(patient),
        care_team: careTeam,
        patient_info: patientName(patient),
        timezone: patient.timezone,
        scheduled_at: scheduledAt,
        sent_at: null,
        received_at: null,
        date: later ?? w.now,
        external_id: null,
        error_message: null,
        skip_event: false,
        starred: draft.starred,
        priority: draft.priority,
        source: draft.source,
        template_name: draft.template_name,
        message_type: 'CARE_TEAM',
        attachments_from_template: JSON.stringify(draft.attachments_from_template),
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await moveFiles(w.db, ctx.scope, { kind: DRAFT_FILES, id: draft.id }, { kind: EMAIL_FILES, id });
    await w.db.deleteFrom('email_drafts').where('tenant_id', '=', ctx.scope.tenantId).where('id', '=', draft.id).execute();
    w.changed([
      { action: 'EMAIL_DRAFT_SENT', entityType: 'EMAIL_DRAFT', entityId: draft.id, patientId: patient.id },
      { action: 'EMAIL_SENT', entityType: 'EMAIL', entityId: id, patientId: patient.id },
    ]);
    w.enqueue({ kind: SEND_EMAIL, payload: { emailId: id }, ...(later ? { runAt: later } : {}) });
    return email;
  });
  return (await emailViews(ctx, [row], origin))[0] as EmailView;
}

/** The `email.send` job: one attempt to hand an email to its instance's driver. */
export async function runSendEmail(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const email = await findEmailById(services.db, scope, String(job.payload.emailId));
  // Gone with its patient, or sent already (the job ran again after its process died).
  if (!email || email.external_id !== null || (email.status !== 'ACCEPTED' && email.status !== 'SCHEDULED')) return 0;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:email');
  if (!ctx) return 0;
  let outcome: StatusMove;
  try {
    const { use: driver } = await services.providers.for(emailSlot, scope);
    const files = await filesOf(services.db, scope, EMAIL_FILES, [email.id]);
    const sent = await driver.send(scope, {
      id: email.id,
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
    outcome = { status: sent.status, externalId: sent.externalId, sentAt: services.clock.now(), errorMessage: null };
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
