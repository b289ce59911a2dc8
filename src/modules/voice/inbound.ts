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
import { FETCH_RECORDING } from './place.ts';
import { findCallByExternalId } from './store.ts';

/**
 * A call to an instance phone (Twilio's signed webhook, the sandbox's inject route): on the patient
 * whose number it comes from, or the contact's patient; from a number no patient or contact has,
 * unrecognized, for `/unrecognized-patients/voice-calls`. A recording it left is fetched by a job.
 * The same call handed over twice (by its provider id) is stored once.
 */
export async function receiveCall(services: Services, scope: Scope, message: InboundMessage): Promise<Received> {
  const known = await findCallByExternalId(services.db, scope, message.externalId);
  if (known) return { id: known.id, patientId: known.patient_id, status: known.status };
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:voice');
  if (!ctx) throw new Error('the instance is gone');
  const sender = await senderOf(services.db, scope, { phone: message.from });
  const patient = sender?.patient;
  const careTeam = patient ? await careTeamNames(services.db, scope.tenantId, patient.id) : null;
  const phone = ((await ctx.formation()).instancePhones ?? []).find((candidate) => candidate.number === message.to);
  const id = uuidv7();
  const status = message.status ?? 'COMPLETED';
  const store = async (w: Work) => {
    await w.db
      .insertInto('voice_calls')
      .values({
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id,
        ...inboundMessageFields(sender, message, { careTeam, receivedAt: w.now }),
        status,
        phone_id: phone?.id ?? null,
        user_phone: null,
        child_call_sid: null,
        parent_call_status: status,
        child_call_status: null,
        parent_call_duration: null,
        child_call_duration: null,
        recorded: false,
        recording_duration: null,
        recording_sid: null,
        recording_url: null,
        unrecognized: !patient,
        assigned_at: null,
        assigned_by: null,
        assigned_by_name: null,
        ...w.created(),
      })
      .execute();
    w.changed({ action: 'VOICE_CALL_RECEIVED', entityType: 'VOICE_CALL', entityId: id, patientId: patient?.id ?? null });
    if (message.recordingUrl) {
      w.enqueue({
        kind: FETCH_RECORDING,
        payload: { callId: id, recordingSid: '', url: message.recordingUrl, durationSeconds: 0 },
      });
    }
  };
  await (patient ? withPatient(ctx, patient.id, store) : write(ctx, store));
  return { id, patientId: patient?.id ?? null, status };
}
