import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { AddressObject, AttachmentStream, MessageText } from 'mailparser';
import { keepFiles, type StoredFile, storeFile } from '../../files/upload.ts';
import type { Services } from '../../http/services.ts';
import type { Received } from '../../providers/channels.ts';
import { emailSlot } from '../../providers/email/email.ts';
import { SignedBody, signatureRefused } from '../../providers/signed-inbound.ts';
import { ApiError } from '../../wire/errors.ts';
import { emailFiles } from './catalog.ts';
import { receiveEmail } from './inbound.ts';

/**
 * Inbound email from the operator's mail system (issue 16, for the smtp driver): the raw message
 * (`message/rfc822`) POSTed to `/{tenant}/{instance}/providers/email/inbound`, signed as Standard
 * Webhooks says with the instance's email `inboundSecret`. It streams through the signature check
 * into mailparser; its attachments stream to the blob store as they come (those the email rules do
 * not take are left out), and all of it is undone if the signature turns out wrong at the end.
 */

/** The largest raw message taken: attachments (25 MB) grow by a third in base64, plus the text. */
export const MAX_RAW_EMAIL_BYTES = 40 * 1024 * 1024;

function firstAddress(header: unknown): { address: string; name: string | null } | null {
  const object = (Array.isArray(header) ? header[0] : header) as AddressObject | undefined;
  const first = object?.value?.[0];
  return first?.address ? { address: first.address, name: first.name || null } : null;
}

export async function receiveRawEmail(
  services: Services,
  tenantName: string,
  instanceName: string,
  request: FastifyRequest,
): Promise<Received> {
  const tenant = await services.tenant(tenantName);
  if (!tenant) throw new ApiError('TENANT_NOT_FOUND', { tenantName });
  const instance = await services.instance(tenant.id, instanceName);
  if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName });
  if (!request.headers['content-type']?.startsWith('message/rfc822')) throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
  const scope = { tenantId: tenant.id, instanceId: instance.id };
  const { use: driver } = await services.providers.for(emailSlot, scope);
  const signed = new SignedBody(driver.inboundSecret, request.headers, services.clock.now(), MAX_RAW_EMAIL_BYTES);
  const { blobs } = services.files;
  const rules = emailFiles.EMAIL.rules;
  const files: StoredFile[] = [];
  // Loaded by the first inbound message: mailparser and what it brings hold ~5 MB of heap that an
  // installation on the sandbox driver, and every worker before its first email, never needs.
  const { MailParser } = await import('mailparser');
  const parser = new MailParser();
  const parsed = pipeline(request.body as Readable, signed, parser);
  let text: MessageText | undefined;
  try {
    let total = 0;
    for await (const data of parser as AsyncIterable<AttachmentStream | MessageText>) {
      if (data.type === 'text') {
        text = data;
        continue;
      }
      try {
        if (files.length < rules.maxFiles) {
          const keyOf = (fileId: string) => `${tenant.name}/${instance.name}/emails/inbound/${fileId}`;
          const file = await storeFile(
            blobs,
            rules,
            keyOf,
            data.filename ?? 'attachment',
            data.content,
            rules.maxTotalBytes - total,
          );
          total += file.size;
          files.push(file);
        } else data.content.resume();
      } catch (error) {
        // An attachment the rules do not take is left out; the email still comes in.
        if (!(error instanceof ApiError)) throw error;
      } finally {
        data.release?.();
      }
    }
    await parsed;
    if (!signed.verified()) throw signatureRefused();
  } catch (error) {
    await blobs.remove(files.map((file) => file.storageKey)).catch(() => {});
    throw error;
  }
  const headers = parser.headers || new Map<string, unknown>();
  const from = firstAddress(headers.get('from'));
  const to = firstAddress(headers.get('to'));
  if (!from || !to) {
    await blobs.remove(files.map((file) => file.storageKey)).catch(() => {});
    throw new ApiError('VALIDATION_ERROR', { errors: [{ path: 'body', message: 'the message names no From or To address' }] });
  }
  const subject = headers.get('subject');
  const messageId = headers.get('message-id');
  return keepFiles(blobs, files, () =>
    receiveEmail(
      services,
      scope,
      {
        from: from.address,
        fromName: from.name,
        to: to.address,
        subject: typeof subject === 'string' ? subject : null,
        message: text?.text ?? null,
        html: typeof text?.html === 'string' ? text.html : null,
        externalId: typeof messageId === 'string' ? messageId : signed.messageId,
      },
      files,
    ),
  );
}
