import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../db/scope.ts';
import type { AuditAction } from '../../events/audit.ts';
import { linkIssue } from '../../files/links.ts';
import { filesOf, insertFiles } from '../../files/store.ts';
import { keepFiles, storeFile } from '../../files/upload.ts';
import type { Context } from '../../http/context.ts';
import { callbackBase, publicUrl } from '../../http/provider-callbacks.ts';
import type { Services } from '../../http/services.ts';
import type { ClaimedJob } from '../../jobs/kinds.ts';
import { type InboundMessage, ProviderError, type Received, type StatusReport } from '../../providers/channels.ts';
import { faxSlot } from '../../providers/fax/fax.ts';
import { ApiError } from '../../wire/errors.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { faxFiles } from './catalog.ts';
import { defaultFaxNumber, FAX_FILES, faxPhones, faxViews, requireFax, requireFaxPhone } from './faxes.ts';
import type { FaxStatus, FaxView } from './schemas.ts';
import { type FaxRow, findFax, findFaxByExternalId } from './store.ts';

/**
 * Sending a fax (DECISIONS §8): DRAFT → QUEUED (the send answers), then the `fax.send` job hands
 * it to the instance's fax driver (SENDING) and the provider's reports move it to SENT, DELIVERED
 * or FAILED. Received faxes arrive RECEIVED, not yet reviewed, their document fetched by a job.
 */

export const SEND_FAX = 'fax.send';
export const FETCH_FAX = 'fax.document';
/** Attempts: waits of 1 minute doubling to an hour, about a day in all. */
export const FAX_ATTEMPTS = 12;
export const FAX_BACKOFF = { baseMs: 60_000, maxMs: 60 * 60_000 };

/** Moves a fax, with its audit row and, for a new status, FAX_STATUS_CHANGED; false when it moved meanwhile. */
async function moveFax(
  ctx: Context,
  fax: FaxRow,
  set: { status: FaxStatus } & Partial<Pick<FaxRow, 'external_id' | 'original_status' | 'status_message' | 'sent_at' | 'pages'>>,
  action: AuditAction = 'FAX_STATUS_CHANGED',
): Promise<boolean> {
  return write(ctx, async (w) => {
    const moved = await w.db
      .updateTable('faxes')
      .set({ ...set, ...w.updated() })
      .where('tenant_id', '=', fax.tenant_id)
      .where('id', '=', fax.id)
      .where('status', '=', fax.status)
      .returning('id')
      .executeTakeFirst();
    if (!moved) return false;
    w.changed({ action, entityType: 'FAX', entityId: fax.id, patientId: fax.patient_id, changedFields: Object.keys(set) });
    if (set.status !== fax.status) {
      w.emit({
        subtype: 'FAX_STATUS_CHANGED',
        recordId: fax.id,
        patientId: fax.patient_id,
        data: { status: set.status, previousStatus: fax.status },
      });
    }
    return true;
  });
}

/** POST /faxes/{id}/send: a draft with a receiver and files, QUEUED; answered at once. */
export async function sendFax(ctx: Context, id: string, origin: string): Promise<FaxView> {
  // Read before the write, which holds the connection (one, on the embedded database).
  const phones = await faxPhones(ctx);
  const row = await write(ctx, async (w) => {
    const fax = await requireFax(ctx, id, w.db, true);
    if (fax.status !== 'DRAFT') throw new ApiError('FAX_NOT_DRAFT', { faxId: id, status: fax.status });
    if (!fax.to_number) throw new ApiError('FAX_RECEIVER_MISSING', { faxId: id });
    // The sender is checked again (the formation may have changed since the draft was written); a
    // draft without one goes from the default fax phone.
    const from = requireFaxPhone(phones, fax.from_number ?? defaultFaxNumber(phones), 'sender.faxNumber');
    if ((await filesOf(w.db, ctx.scope, FAX_FILES, [id])).length === 0) throw new ApiError('FAX_FILES_MISSING', { faxId: id });
    const queued = await w.db
      .updateTable('faxes')
      .set({ status: 'QUEUED', from_number: from, sent_by: w.actor.id, sent_by_name: w.actor.name, ...w.updated() })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const changedFields = fax.from_number === from ? ['status'] : ['status', 'sender'];
    w.changed({ action: 'FAX_SENT', entityType: 'FAX', entityId: id, patientId: fax.patient_id, changedFields });
    w.emit({
      subtype: 'FAX_STATUS_CHANGED',
      recordId: id,
      patientId: fax.patient_id,
      data: { status: 'QUEUED', previousStatus: 'DRAFT' },
    });
    w.enqueue({ kind: SEND_FAX, payload: { faxId: id } });
    return queued;
  });
  return (await faxViews(ctx, [row], origin))[0] as FaxView;
}

/** The `fax.send` job: one attempt to hand a queued fax to the instance's driver. */
export async function runSendFax(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const fax = await findFax(services.db, scope, String(job.payload.faxId));
  if (fax?.status !== 'QUEUED') return 0;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:fax');
  if (!ctx) return 0;
  try {
    const { use: driver } = await services.providers.for(faxSlot, scope);
    const files = await filesOf(services.db, scope, FAX_FILES, [fax.id]);
    // A vendor that fetches the files itself gets links at this server's public address.
    const origin = publicUrl(services, '');
    const issue = origin === null ? null : linkIssue(origin, services.clock.now(), ctx.actor);
    const urls = files.map((file) => (issue === null ? null : services.files.withLink(file, issue).url));
    const sent = await driver.send(scope, {
      id: fax.id,
      patientId: fax.patient_id,
      from: fax.from_number,
      to: fax.to_number ?? '',
      subject: fax.subject,
      highQuality: fax.high_quality,
      files: files.map((file, index) => ({
        fileName: file.original_name,
        contentType: file.content_type,
        size: Number(file.size),
        url: urls[index] ?? null,
        open: () => services.files.blobs.get(file.storage_key),
      })),
      callbackBase: callbackBase(services, ctx.tenant.name, ctx.instance.name, 'fax'),
    });
    await moveFax(ctx, fax, {
      status: sent.status as FaxStatus,
      external_id: sent.externalId,
      original_status: sent.originalStatus,
      sent_at: services.clock.now(),
    });
  } catch (error) {
    const provider = error instanceof ProviderError ? error : null;
    if (!provider?.permanent && job.attempt < FAX_ATTEMPTS) {
      if (provider) {
        await write(ctx, async (w) => {
          await w.db
            .updateTable('faxes')
            .set({ status_message: provider.message, ...w.updated() })
            .where('tenant_id', '=', scope.tenantId)
            .where('id', '=', fax.id)
            .execute();
        });
      }
      throw error;
    }
    await moveFax(ctx, fax, { status: 'FAILED', status_message: provider?.message ?? 'The fax could not be sent' });
  }
  return 1;
}

const progress: Partial<Record<FaxStatus, number>> = { QUEUED: 0, SENDING: 1, SENT: 2, DELIVERED: 3, FAILED: 3 };

/** The sandbox's outcomes, in a fax's words. */
export const faxSandboxOutcomes = { deliver: 'DELIVERED', bounce: 'FAILED', fail: 'FAILED' } as const;

/** The fax channel's `report`: a provider's word on a fax sent; moves it on, never back. */
export async function reportFaxStatus(
  services: Services,
  scope: Scope,
  report: StatusReport & { originalStatus?: string },
): Promise<boolean> {
  const fax = await findFaxByExternalId(services.db, scope, report.externalId);
  if (!fax) return false;
  const before = progress[fax.status as FaxStatus];
  const after = progress[report.status as FaxStatus];
  if (before === undefined || after === undefined || after <= before) return true;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:fax');
  if (!ctx) return false;
  const pages = typeof report.details?.pages === 'number' ? report.details.pages : undefined;
  await moveFax(ctx, fax, {
    status: report.status as FaxStatus,
    original_status: report.originalStatus ?? report.status,
    status_message: report.error ?? null,
    ...(pages !== undefined ? { pages } : {}),
  });
  return true;
}

/** The fax channel's `receive`: RECEIVED, not reviewed; its document fetched by a job. Once per provider id. */
export async function receiveFax(services: Services, scope: Scope, message: InboundMessage): Promise<Received> {
  const known = await findFaxByExternalId(services.db, scope, message.externalId);
  if (known) return { id: known.id, patientId: known.patient_id, status: known.status };
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:fax');
  if (!ctx) throw new Error('the instance is gone');
  const id = uuidv7();
  await write(ctx, async (w) => {
    await w.db
      .insertInto('faxes')
      .values({
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id,
        direction: 'IN',
        status: 'RECEIVED',
        original_status: null,
        status_message: null,
        external_id: message.externalId,
        from_number: message.from,
        to_number: message.to,
        subject: message.subject ?? null,
        high_quality: false,
        patient_id: null,
        reviewed: false,
        received_at: w.now,
        sent_at: null,
        sent_by: null,
        sent_by_name: null,
        pages: null,
        ...w.created(),
      })
      .execute();
    w.changed({ action: 'FAX_RECEIVED', entityType: 'FAX', entityId: id, patientId: null });
    if (message.documentUrl) w.enqueue({ kind: FETCH_FAX, payload: { faxId: id, url: message.documentUrl } });
  });
  return { id, patientId: null, status: 'RECEIVED' };
}

/** The `fax.document` job: a received fax's document streamed from the provider into the file store, once. */
export async function runFetchFaxDocument(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const fax = await findFax(services.db, scope, String(job.payload.faxId));
  if (!fax || (await filesOf(services.db, scope, FAX_FILES, [fax.id])).length > 0) return 0;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:fax');
  if (!ctx) return 0;
  const { use: driver } = await services.providers.for(faxSlot, scope);
  const { blobs } = services.files;
  const rules = faxFiles.FAX.rules;
  const file = await storeFile(
    blobs,
    rules,
    (fileId) => `${ctx.tenant.name}/${ctx.instance.name}/faxes/${fax.id}/${fileId}`,
    `fax-${fax.id}.pdf`,
    await driver.fetchDocument(String(job.payload.url)),
    rules.maxTotalBytes,
  );
  await keepFiles(blobs, [file], () =>
    write(ctx, async (w) => {
      await insertFiles(w, scope, { kind: FAX_FILES, id: fax.id }, [file]);
      w.changed({
        action: 'FAX_UPDATED',
        entityType: 'FAX',
        entityId: fax.id,
        patientId: fax.patient_id,
        changedFields: ['files'],
      });
    }),
  );
  return 1;
}
