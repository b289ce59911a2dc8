import type { Area } from '../../platform/area.ts';
import { voiceSlot } from '../../providers/voice/voice.ts';
import { messagesOfPatient } from '../../records/messages.ts';
import { voiceAuditActions, voiceErrors, voiceEvents, voiceFiles, voicePermissions } from './catalog.ts';
import { callExport } from './export.ts';
import { receiveCall } from './inbound.ts';
import { callSandboxOutcomes, FETCH_RECORDING, reportCallStatus } from './place.ts';
import { RECORDING_ATTEMPTS, RECORDING_BACKOFF, runFetchRecording } from './recording.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'voice',
  routes,
  permissions: voicePermissions,
  errors: voiceErrors,
  auditActions: voiceAuditActions,
  events: voiceEvents,
  files: voiceFiles,
  exports: { VOICE_CALL: callExport },
  providers: [voiceSlot],
  channels: { VOICE_CALL: { slot: voiceSlot, receive: receiveCall, report: reportCallStatus, sandbox: callSandboxOutcomes } },
  jobs: {
    [FETCH_RECORDING]: {
      description: "Fetches a call's recording from the voice vendor into the file store",
      run: runFetchRecording,
      maxAttempts: RECORDING_ATTEMPTS,
      backoff: RECORDING_BACKOFF,
    },
  },
  // Its rows of a patient cascade; a purge takes their sandbox copies too.
  patientData: messagesOfPatient('voice_calls'),
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
