import type { Work } from '../../events/work.ts';
import { insertFiles } from '../../files/store.ts';
import { keepFiles, storeFile } from '../../files/upload.ts';
import type { Services } from '../../http/services.ts';
import type { ClaimedJob } from '../../jobs/kinds.ts';
import { voiceSlot } from '../../providers/voice/voice.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { ApiError } from '../../wire/errors.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { CALL_FILES } from './calls.ts';
import { voiceFiles } from './catalog.ts';
import { findCall } from './store.ts';

/** Attempts to fetch a recording: waits of 30 s doubling to an hour, about a day in all. */
export const RECORDING_ATTEMPTS = 12;
export const RECORDING_BACKOFF = { baseMs: 30_000, maxMs: 60 * 60_000 };

/**
 * The `voice.recording` job: a recording the vendor made is streamed from it (its driver holds the
 * credentials) into the blob store, checked as audio, and becomes the call's recording file, once.
 * A voicemail's call is COMPLETED with it.
 */
export async function runFetchRecording(job: ClaimedJob, services: Services): Promise<number> {
  const scope = { tenantId: job.tenantId, instanceId: String(job.instanceId) };
  const { callId, recordingSid, url, durationSeconds } = job.payload as {
    callId: string;
    recordingSid: string;
    url: string;
    durationSeconds: number;
  };
  const call = await findCall(services.db, scope, callId);
  if (!call || (call.recording_sid !== null && call.recording_sid === recordingSid)) return 0;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:voice');
  if (!ctx) return 0;
  const { use: driver } = await services.providers.for(voiceSlot, scope);
  const { blobs } = services.files;
  const rules = voiceFiles.VOICE_CALL.rules;
  const file = await storeFile(
    blobs,
    rules,
    (fileId) => `${ctx.tenant.name}/${ctx.instance.name}/voice-calls/${callId}/${fileId}`,
    `recording-${recordingSid || callId}.mp3`,
    await driver.fetchRecording(url),
    rules.maxTotalBytes,
  );
  const keep = async (w: Work) => {
    await insertFiles(w, scope, { kind: CALL_FILES, id: callId, ...(call.patient_id ? { patientId: call.patient_id } : {}) }, [
      file,
    ]);
    await w.db
      .updateTable('voice_calls')
      .set({
        recorded: true,
        recording_sid: recordingSid || null,
        recording_url: url,
        recording_duration: Number.isFinite(durationSeconds) ? Math.round(durationSeconds) : null,
        ...(call.status === 'IN_PROGRESS' ? { status: 'COMPLETED' } : {}),
        ...w.updated(),
      })
      .where('tenant_id', '=', scope.tenantId)
      .where('id', '=', callId)
      .execute();
    w.changed({
      action: 'VOICE_CALL_RECORDED',
      entityType: 'VOICE_CALL',
      entityId: callId,
      patientId: call.patient_id,
      changedFields: ['recordingFile'],
    });
  };
  try {
    await keepFiles(blobs, [file], () => (call.patient_id ? withPatient(ctx, call.patient_id, keep) : write(ctx, keep)));
  } catch (error) {
    // The patient (and the call with it) went meanwhile: nothing to keep.
    if (error instanceof ApiError && error.errorCode === 'PATIENT_NOT_FOUND') return 0;
    throw error;
  }
  return 1;
}
