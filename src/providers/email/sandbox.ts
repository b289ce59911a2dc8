import { sandboxSend } from '../sandbox.ts';
import type { EmailDriver, EmailEnv } from './driver.ts';

/** The default email driver: each email goes to the sandbox outbox, ACCEPTED, and waits there to be told its fate. */
export function sandboxEmail(options: Record<string, unknown>, env: EmailEnv): EmailDriver {
  const from = { address: String(options.from), name: (options.fromName as string | undefined) ?? null };
  return {
    from,
    inboundSecret: null,
    async send(scope, email) {
      const externalId = await sandboxSend(env, scope, {
        channel: 'EMAIL',
        reference: email.id,
        patientId: email.patientId,
        from: email.from.address,
        to: email.to.address,
        subject: email.subject,
        body: email.html ?? email.text,
        attachmentNames: email.attachments.map((attachment) => attachment.fileName),
      });
      return { externalId, status: 'ACCEPTED' };
    },
  };
}
