import { Readable } from 'node:stream';
import { SANDBOX_FAX_DOCUMENT, sandboxSend } from '../sandbox.ts';
import type { FaxDriver, FaxEnv } from './driver.ts';

/** The default fax driver: each fax goes to the sandbox outbox, SENDING, until the sandbox is told how it went. */
export function sandboxFax(env: FaxEnv): FaxDriver {
  return {
    async send(scope, fax) {
      const externalId = await sandboxSend(env, scope, {
        channel: 'FAX',
        reference: fax.id,
        patientId: fax.patientId,
        from: fax.from ?? '',
        to: fax.to,
        subject: fax.subject,
        attachmentNames: fax.files.map((file) => file.fileName),
      });
      return { externalId, status: 'SENDING', originalStatus: null };
    },
    fetchDocument: async () => Readable.from([SANDBOX_FAX_DOCUMENT]),
  };
}
