import net from 'node:net';
import type { Readable } from 'node:stream';
import { type Static, Type } from 'typebox';
import { settingsOf } from '../../config.ts';
import { ProviderError } from '../channels.ts';
import { type AddressPolicy, addressPolicy, allowedAddress } from '../network.ts';
import { providerSettings } from '../settings.ts';
import type { ConfigLevel } from '../slot.ts';
import type { EmailDriver, EmailEnv } from './driver.ts';

/** The SMTP driver's options, a tenant's or the server's (CAIRN_SMTP_*). */
export const SmtpOptions = Type.Object({
  host: Type.String({ minLength: 1, maxLength: 253, description: 'The relay' }),
  port: Type.Integer({ minimum: 1, maximum: 65535, default: 587 }),
  secure: Type.Boolean({ default: false, description: 'TLS from the first byte (port 465); otherwise STARTTLS' }),
  requireTLS: Type.Boolean({ default: true, description: 'Refuse to send unless the connection is encrypted' }),
  tlsRejectUnauthorized: Type.Boolean({ default: true, description: "Check the relay's certificate" }),
  user: Type.Optional(Type.String({ maxLength: 320, description: 'AUTH user; none: no authentication' })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  maxConnections: Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'Connections each process keeps open' }),
  inboundSecret: Type.Optional(
    Type.String({
      pattern: '^whsec_',
      maxLength: 200,
      description: 'Signs raw inbound emails posted to Cairn (Standard Webhooks)',
    }),
  ),
});

type Options = Static<typeof SmtpOptions> & { from: string; fromName?: string };

/** How long a connection, the greeting or a reply may take: a relay that hangs fails the attempt, which is retried. */
const TIMEOUT_MS = 30_000;

/**
 * Sends through an SMTP relay with nodemailer, over a pool of connections kept per configuration.
 * A relay a tenant configured is reached only at an address the operator allows (public ones by
 * default), checked on the address connected to, so a tenant cannot make Cairn probe its network.
 * The relay's answer is the last word SMTP gives: a message it accepted is DELIVERED.
 */
export async function smtpEmail(options: Record<string, unknown>, env: EmailEnv, level: ConfigLevel): Promise<EmailDriver> {
  const o = options as Options;
  const allowed = addressPolicy(settingsOf(env.config, providerSettings).allowPrivate);
  // Loaded when an SMTP driver is first made: a server on the sandbox never loads nodemailer.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: o.maxConnections,
    host: o.host,
    port: o.port,
    secure: o.secure,
    requireTLS: o.requireTLS,
    tls: { rejectUnauthorized: o.tlsRejectUnauthorized, minVersion: 'TLSv1.2' },
    ...(o.user ? { auth: { user: o.user, pass: o.password ?? '' } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    // nodemailer's own logging names addresses: off (logs carry no PHI).
    logger: false,
    ...(level === 'server' ? {} : { getSocket: checkedSocket(allowed) }),
  });
  const domain = o.from.split('@')[1] ?? 'cairn.invalid';
  return {
    from: { address: o.from, name: o.fromName ?? null },
    inboundSecret: o.inboundSecret ?? null,
    async send(_scope, email) {
      const streams: Readable[] = [];
      try {
        const attachments = [];
        for (const attachment of email.attachments) {
          const content = await attachment.open();
          streams.push(content);
          attachments.push({ filename: attachment.fileName, contentType: attachment.contentType, content });
        }
        const info = await transport.sendMail({
          messageId: `<${email.id}@${domain}>`,
          from: { address: email.from.address, name: email.from.name ?? '' },
          to: { address: email.to.address, name: email.to.name ?? '' },
          subject: email.subject,
          ...(email.text !== null ? { text: email.text } : {}),
          ...(email.html !== null ? { html: email.html } : {}),
          attachments,
        });
        return { externalId: info.messageId, status: 'DELIVERED' };
      } catch (error) {
        throw smtpFailure(error);
      } finally {
        for (const stream of streams) stream.destroy();
      }
    },
    close: () => transport.close(),
  };
}

/** A connection to the relay's host made only to an allowed address (a tenant's relay). */
function checkedSocket(allowed: AddressPolicy) {
  return (
    options: { host?: string | undefined; port?: number | undefined },
    callback: (error: Error | null, socket?: { connection: net.Socket }) => void,
  ) => {
    allowedAddress(String(options.host ?? ''), allowed).then(
      (address) => {
        if (!address) {
          callback(new ProviderError('SMTP_ADDRESS_NOT_ALLOWED', 'The SMTP host is not at an address Cairn may reach', false));
          return;
        }
        const socket = net.connect({ host: address, port: Number(options.port ?? 25) });
        const failed = (error: Error) => callback(error);
        socket.once('error', failed);
        socket.once('connect', () => {
          socket.off('error', failed);
          callback(null, { connection: socket });
        });
      },
      (error: Error) => callback(error),
    );
  };
}

/**
 * nodemailer's error as a provider's: a 5xx reply refuses the message for good (an unknown mailbox,
 * a message too large), so it is REJECTED at once; a 4xx, a lost connection, a timeout or refused
 * credentials may pass later (or once an administrator fixes them), so the send is retried.
 */
function smtpFailure(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const {
    code = 'ERROR',
    responseCode,
    response,
    message,
  } = error as {
    code?: string;
    responseCode?: number;
    response?: string;
    message?: string;
  };
  const permanent = responseCode !== undefined && responseCode >= 500 && code !== 'EAUTH';
  return new ProviderError(`SMTP_${code}`, response ?? message ?? code, permanent);
}
