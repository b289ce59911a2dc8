import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendFile } from '../../files/download.ts';
import { linkIssue } from '../../files/links.ts';
import { filesOf, findFile } from '../../files/store.ts';
import { disclose } from '../../http/access-log.ts';
import type { Context } from '../../http/context.ts';
import type { Paging } from '../../http/pagination.ts';
import { messageRecordView } from '../../records/messages.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { patientName } from '../../records/recipients.ts';
import { ApiError } from '../../wire/errors.ts';
import type { CallStatus, UnrecognizedFilters, VoiceCallView } from './schemas.ts';
import { type CallRow, findCall, listCalls } from './store.ts';

/** Voice calls (002 "Unrecognized calls"): the unrecognized list, one call, its recording, and assigning it. */

export const CALL_FILES = 'VOICE_CALL';

/** Rows as the API shows them, each with its recording's fresh link (one statement for the page's files). */
export async function callViews(ctx: Context, rows: CallRow[], origin: string): Promise<VoiceCallView[]> {
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    CALL_FILES,
    rows.map((row) => row.id),
  );
  const linked = ctx.services.files.withLinksByOwner(files, linkIssue(origin, ctx.services.clock.now(), ctx.actor));
  return rows.map((row) => {
    const { messageType: _messageType, ...record } = messageRecordView(row);
    const recording = linked.get(row.id)?.[0] ?? null;
    return {
      ...record,
      unrecognized: row.unrecognized,
      assignedBy: row.assigned_by,
      assignedByName: row.assigned_by_name,
      status: row.status as CallStatus,
      childCallSid: row.child_call_sid,
      parentCallStatus: row.parent_call_status,
      childCallStatus: row.child_call_status,
      userPhone: row.user_phone,
      parentCallDuration: row.parent_call_duration,
      childCallDuration: row.child_call_duration,
      recorded: row.recorded,
      recordingDuration: row.recording_duration,
      recordingSid: row.recording_sid,
      recordingUrl: recording?.url ?? null,
      recordingFile: recording,
      phoneId: row.phone_id,
    };
  });
}

export async function listUnrecognizedCalls(ctx: Context, filters: UnrecognizedFilters, paging: Paging, origin: string) {
  const { rows, total } = await listCalls(ctx.db, ctx.scope, filters, paging);
  // The patients the page shows, for the access log: an assigned call names its patient only by name.
  return { content: await callViews(ctx, rows, origin), total, patients: rows.map((row) => row.patient_id) };
}

async function requireCall(ctx: Context, id: string, db = ctx.db): Promise<CallRow> {
  const row = await findCall(db, ctx.scope, id);
  if (!row) throw new ApiError('VOICE_CALL_NOT_FOUND', { voiceCallId: id });
  return row;
}

/** A call as the API shows it, and its patient (for the access log). */
export async function getCall(
  ctx: Context,
  id: string,
  origin: string,
): Promise<{ call: VoiceCallView; patientId: string | null }> {
  const row = await requireCall(ctx, id);
  return { call: (await callViews(ctx, [row], origin))[0] as VoiceCallView, patientId: row.patient_id };
}

/** The recording's bytes (Range answered as for every file). */
export async function downloadRecording(ctx: Context, request: FastifyRequest, reply: FastifyReply, id: string, fileId: string) {
  const call = await requireCall(ctx, id);
  const file = await findFile(ctx.db, ctx.scope, fileId);
  if (!file || file.owner_kind !== CALL_FILES || file.owner_id !== id) throw new ApiError('FILE_NOT_FOUND', { fileId });
  disclose(request, [call.patient_id], [file.id]);
  return sendFile(request, reply, ctx.services.files.blobs, file);
}

/** PATCH {patientId}: the call (and its recording) is the patient's from now on; it still shows it came unrecognized. */
export async function assignCall(ctx: Context, id: string, patientId: string, origin: string): Promise<VoiceCallView> {
  await requireCall(ctx, id);
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const updated = await w.db
      .updateTable('voice_calls')
      .set({
        patient_id: patient.id,
        contact_id: null,
        patient_info: patientName(patient),
        timezone: patient.timezone,
        assigned_at: w.now,
        assigned_by: w.actor.id,
        assigned_by_name: w.actor.name,
        ...w.updated(),
      })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await w.db
      .updateTable('files')
      .set({ patient_id: patient.id })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('owner_kind', '=', CALL_FILES)
      .where('owner_id', '=', id)
      .execute();
    w.changed({
      action: 'VOICE_CALL_ASSIGNED',
      entityType: 'VOICE_CALL',
      entityId: id,
      patientId: patient.id,
      changedFields: ['patientId'],
    });
    return updated;
  });
  return (await callViews(ctx, [row], origin))[0] as VoiceCallView;
}
