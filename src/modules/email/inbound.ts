import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../db/scope.ts';
import type { Work } from '../../events/work.ts';
import { insertFiles } from '../../files/store.ts';
import type { StoredFile } from '../../files/upload.ts';
import type { Services } from '../../http/services.ts';
import type { InboundMessage, Received } from '../../providers/channels.ts';
import { inboundMessageFields } from '../../records/messages.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { careTeamNames, senderOf } from '../../records/recipients.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { cleanBody } from './drafts.ts';
import { EMAIL_FILES } from './emails.ts';
import { findEmailByExternalId } from './store.ts';

/**
 * Inbound email (002 "Email"): what a provider hands over (the sandbox's inject route, a raw
 * message posted by the operator's mail system) becomes an email on the patient whose address it
 * comes from, or on the contact's patient, DELIVERED; from an address no patient or contact has,
 * an UNRECOGNISED email with no patient. The same message handed over twice (by its provider id)
 * is stored once.
 */
export async function receiveEmail(
  services: Services,
  scope: Scope,
  message: InboundMessage,
  files: readonly StoredFile[] = [],
): Promise<Received> {
  const known = await findEmailByExternalId(services.db, scope, message.externalId);
  if (known) {
    // Handed over before: this copy's attachments are not kept.
    await services.files.blobs.remove(files.map((file) => file.storageKey)).catch(() => {});
    return { id: known.id, patientId: known.patient_id, status: known.status };
  }
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:email');
  if (!ctx) throw new Error('the instance is gone');
  const sender = await senderOf(services.db, scope, { email: message.from });
  const patient = sender?.patient;
  const careTeam = patient ? await careTeamNames(services.db, scope.tenantId, patient.id) : null;
  const id = uuidv7();
  const html = message.html ? await cleanBody(message.html, 'HTML') : null;
  const store = async (w: Work) => {
    await w.db
      .insertInto('emails')
      .values({
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id,
        ...inboundMessageFields(sender, message, { careTeam, receivedAt: w.now }),
        status: patient ? 'DELIVERED' : 'UNRECOGNISED',
        subject: message.subject ?? null,
        body: html ?? message.message ?? null,
        body_type: html ? 'HTML' : 'PLAIN_TEXT',
        secure: false,
        priority: 'NO_PRIORITY',
        source: 'PROVIDER',
        template_name: null,
        attachments_from_template: '[]',
        ...w.created(),
      })
      .execute();
    await insertFiles(w, scope, { kind: EMAIL_FILES, id, ...(patient ? { patientId: patient.id } : {}) }, files);
    w.changed({ action: 'EMAIL_RECEIVED', entityType: 'EMAIL', entityId: id, patientId: patient?.id ?? null });
  };
  // Under its patient, held so a concurrent delete waits; an unrecognised one belongs to no patient.
  await (patient ? withPatient(ctx, patient.id, store) : write(ctx, store));
  return { id, patientId: patient?.id ?? null, status: patient ? 'DELIVERED' : 'UNRECOGNISED' };
}
