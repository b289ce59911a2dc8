import type { Updateable } from 'kysely';
import type { Scope } from '../../db/scope.ts';
import type { AuditAction } from '../../events/audit.ts';
import type { Work } from '../../events/work.ts';
import type { Context } from '../../http/context.ts';
import { callbackBase } from '../../http/provider-callbacks.ts';
import type { Services } from '../../http/services.ts';
import { ProviderError, type StatusReport } from '../../providers/channels.ts';
import type { RecordingReport } from '../../providers/voice/driver.ts';
import { voiceSlot } from '../../providers/voice/voice.ts';
import { outboundMessageFields } from '../../records/messages.ts';
import { careTeamNames, type Recipient } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import type { CallStatus } from './schemas.ts';
import { type CallRow, findCallByExternalId } from './store.ts';
import type { VoiceCallsTable } from './tables.ts';

/**
 * Calls placed through the communication send (002 "Communications": VOICE_CALL with `recorded`):
 * stored, then placed with the instance's voice driver at once (a provider failure answers 500
 * PROVIDER_FAILED and leaves the call FAILED); its legs' progress and its recording arrive later.
 */

export const FETCH_RECORDING = 'voice.recording';

export interface OutboundCall {
  id: string;
  recipient: Recipient;
  to: string;
  phone: { id: string; number: string };
  /** The calling member's phone, rung first. */
  userPhone: string;
  recorded: boolean;
}

/** The calling member's phone: a call rings it first (400 NO_CALLER_PHONE for an API client or a user without one). */
export async function callerPhone(ctx: Context): Promise<string> {
  if (ctx.caller?.type !== 'USER') throw new ApiError('NO_CALLER_PHONE', { callerType: ctx.caller?.type ?? null });
  const user = await ctx.db
    .selectFrom('users')
    .select('phone')
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('id', '=', ctx.caller.id)
    .executeTakeFirst();
  if (!user?.phone) throw new ApiError('NO_CALLER_PHONE', { callerType: 'USER' });
  return user.phone;
}

/** Stores an outbound call, QUEUED, in the caller's write. */
export async function recordOutboundCall(w: Work, ctx: Context, call: OutboundCall): Promise<CallRow> {
  const { patient } = call.recipient;
  const careTeam = await careTeamNames(w.db, ctx.scope.tenantId, patient.id);
  const row = await w.db
    .insertInto('voice_calls')
    .values({
      tenant_id: ctx.scope.tenantId,
      instance_id: ctx.scope.instanceId,
      id: call.id,
      ...outboundMessageFields(ctx.actor, call.recipient, { from: call.phone.number, to: call.to, careTeam, date: w.now }),
      status: 'QUEUED',
      phone_id: call.phone.id,
      user_phone: call.userPhone,
      child_call_sid: null,
      parent_call_status: null,
      child_call_status: null,
      parent_call_duration: null,
      child_call_duration: null,
      recorded: call.recorded,
      recording_duration: null,
      recording_sid: null,
      recording_url: null,
      unrecognized: false,
      assigned_at: null,
      assigned_by: null,
      assigned_by_name: null,
      ...w.created(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  w.changed({ action: 'VOICE_CALL_PLACED', entityType: 'VOICE_CALL', entityId: call.id, patientId: patient.id });
  return row;
}

/** Changes a call's columns, with its audit row; a new status also says so on its own (VOICE_CALL_STATUS_CHANGED). */
async function changeCall(
  ctx: Context,
  row: CallRow,
  set: Updateable<VoiceCallsTable>,
  action: AuditAction,
  changedFields: string[],
): Promise<CallRow> {
  return write(ctx, async (w) => {
    const updated = await w.db
      .updateTable('voice_calls')
      .set({ ...set, ...w.updated() })
      .where('tenant_id', '=', row.tenant_id)
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({ action, entityType: 'VOICE_CALL', entityId: row.id, patientId: row.patient_id, changedFields });
    if (set.status !== undefined && set.status !== row.status) {
      w.emit({
        subtype: 'VOICE_CALL_STATUS_CHANGED',
        recordId: row.id,
        patientId: row.patient_id,
        data: { status: set.status, previousStatus: row.status },
      });
    }
    return updated;
  });
}

/** Places a stored call now; answers it as it then is, or leaves it FAILED and throws 500 PROVIDER_FAILED. */
export async function placeCall(ctx: Context, row: CallRow): Promise<CallRow> {
  try {
    const { use: driver } = await ctx.services.providers.for(voiceSlot, ctx.scope);
    const placed = await driver.call(ctx.scope, {
      id: row.id,
      patientId: row.patient_id,
      from: row.from_address,
      userPhone: row.user_phone ?? '',
      to: row.to_address,
      record: row.recorded,
      callbackBase: callbackBase(ctx.services, ctx.tenant.name, ctx.instance.name, 'voice'),
    });
    return await changeCall(
      ctx,
      row,
      {
        status: placed.status,
        parent_call_status: placed.status,
        external_id: placed.externalId,
        sent_at: ctx.services.clock.now(),
      },
      'VOICE_CALL_STATUS_CHANGED',
      ['status', 'parentCallStatus', 'externalId', 'sentAt'],
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await changeCall(ctx, row, { status: 'FAILED', error_message: error.message }, 'VOICE_CALL_STATUS_CHANGED', [
      'status',
      'errorMessage',
    ]);
    throw new ApiError('PROVIDER_FAILED', { id: row.id, code: error.code });
  }
}

const ended = new Set<string>(['COMPLETED', 'BUSY', 'NO_ANSWER', 'FAILED', 'CANCELED']);

/** The sandbox's outcomes, in a call's words. */
export const callSandboxOutcomes = { deliver: 'COMPLETED', bounce: 'NO_ANSWER', fail: 'FAILED' } as const;

/**
 * The voice channel's `report`: a leg's progress. The parent leg's status is the call's; the
 * child's (the patient's phone) is kept beside it. A call that ended does not start again.
 */
export async function reportCallStatus(services: Services, scope: Scope, report: StatusReport): Promise<boolean> {
  const call = await findCallByExternalId(services.db, scope, report.externalId);
  if (!call) return false;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:voice');
  if (!ctx) return false;
  const details = report.details ?? {};
  const duration = typeof details.duration === 'number' ? details.duration : undefined;
  if (details.leg === 'child') {
    await changeCall(
      ctx,
      call,
      {
        child_call_status: report.status,
        ...(typeof details.childCallSid === 'string' ? { child_call_sid: details.childCallSid } : {}),
        ...(duration !== undefined ? { child_call_duration: duration } : {}),
      },
      'VOICE_CALL_STATUS_CHANGED',
      ['childCallStatus', 'childCallSid', 'childCallDuration'],
    );
    return true;
  }
  if (ended.has(call.status) && !ended.has(report.status)) return true;
  const failed = report.status === 'FAILED' || report.status === 'NO_ANSWER' || report.status === 'BUSY';
  await changeCall(
    ctx,
    call,
    {
      status: report.status as CallStatus,
      parent_call_status: report.status,
      ...(duration !== undefined ? { parent_call_duration: duration } : {}),
      ...(failed && report.error ? { error_message: report.error } : {}),
    },
    'VOICE_CALL_STATUS_CHANGED',
    ['status', 'parentCallStatus', 'parentCallDuration'],
  );
  return true;
}

/** A vendor says a call was recorded: its bytes are fetched by a job (the vendor waits for no download). */
export async function reportRecording(services: Services, scope: Scope, recording: RecordingReport): Promise<boolean> {
  const call = await findCallByExternalId(services.db, scope, recording.externalId);
  if (!call) return false;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:voice');
  if (!ctx) return false;
  await write(ctx, async (w) => {
    w.enqueue({ kind: FETCH_RECORDING, payload: { callId: call.id, ...recording } });
  });
  return true;
}
