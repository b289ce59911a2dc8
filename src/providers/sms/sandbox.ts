import { sandboxSend } from '../sandbox.ts';
import type { SmsDriver, SmsEnv } from './driver.ts';

/** The default SMS driver: each message goes to the sandbox outbox, ACCEPTED, and waits there to be told its fate. */
export function sandboxSms(env: SmsEnv): SmsDriver {
  return {
    async send(scope, sms) {
      const externalId = await sandboxSend(env, scope, {
        channel: 'SMS',
        reference: sms.id,
        patientId: sms.patientId,
        from: sms.from,
        to: sms.to,
        body: sms.body,
        attachmentNames: sms.attachments.map((attachment) => attachment.fileName),
      });
      return { externalId, status: 'ACCEPTED' };
    },
  };
}
