import { Readable } from 'node:stream';
import { SANDBOX_RECORDING, sandboxSend } from '../sandbox.ts';
import type { VoiceDriver, VoiceEnv } from './driver.ts';

/** The default voice driver: each call goes to the sandbox outbox, QUEUED, until the sandbox is told how it went. */
export function sandboxVoice(env: VoiceEnv): VoiceDriver {
  return {
    async call(scope, call) {
      const externalId = await sandboxSend(env, scope, {
        channel: 'VOICE_CALL',
        reference: call.id,
        patientId: call.patientId,
        from: call.from,
        to: call.to,
        subject: `Call from ${call.userPhone}${call.record ? ', recorded' : ''}`,
      });
      return { externalId, status: 'QUEUED' };
    },
    fetchRecording: async () => Readable.from([SANDBOX_RECORDING]),
  };
}
