import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../db/scope.ts';
import type { Work } from '../../events/work.ts';
import type { Services } from '../../http/services.ts';
import type { InboundMessage, Received } from '../../providers/channels.ts';
import { inboundMessageFields } from '../../records/messages.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { careTeamNames, senderOf } from '../../records/recipients.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { checkSmsText, partsOf } from './send.ts';
import { findSmsByExternalId } from './store.ts';

/**
 * Inbound SMS: what a provider hands over (Twilio's signed webhook, the sandbox's inject route)
 * becomes a message on the patient whose number it comes from, or on the contact's patient,
 * RECEIVED; from a number no patient or contact has, UNRECOGNISED with no patient. The same
 * message handed over twice (by its provider id) is stored once.
 */
export async function receiveSms(services: Services, scope: Scope, message: InboundMessage): Promise<Received> {
  checkSmsText(message.message ?? '');
  const known = await findSmsByExternalId(services.db, scope, message.externalId);
  if (known) return { id: known.id, patientId: known.patient_id, status: known.status };
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:sms');
  if (!ctx) throw new Error('the instance is gone');
  const sender = await senderOf(services.db, scope, { phone: message.from });
  const patient = sender?.patient;
  const careTeam = patient ? await careTeamNames(services.db, scope.tenantId, patient.id) : null;
  const phone = ((await ctx.formation()).instancePhones ?? []).find((candidate) => candidate.number === message.to);
  const id = uuidv7();
  const text = message.message ?? '';
  const status = patient ? 'RECEIVED' : 'UNRECOGNISED';
  const store = async (w: Work) => {
    await w.db
      .insertInto('sms_messages')
      .values({
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id,
        ...inboundMessageFields(sender, message, { careTeam, receivedAt: w.now }),
        status,
        message: text,
        parts: partsOf(text),
        phone_id: phone?.id ?? null,
        attachments_from_template: '[]',
        ...w.created(),
      })
      .execute();
    w.changed({ action: 'SMS_RECEIVED', entityType: 'SMS', entityId: id, patientId: patient?.id ?? null });
  };
  await (patient ? withPatient(ctx, patient.id, store) : write(ctx, store));
  return { id, patientId: patient?.id ?? null, status };
}
