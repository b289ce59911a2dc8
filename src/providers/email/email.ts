import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { Email } from '../../wire/schemas.ts';
import { providerSlot } from '../slot.ts';
import type { EmailDriver, EmailEnv } from './driver.ts';
import { sandboxEmail } from './sandbox.ts';
import { SmtpOptions, smtpEmail } from './smtp.ts';

/**
 * The email channel (002 "Email") in the provider slot: the sandbox records each email (the
 * default); `smtp` sends it through an SMTP relay with nodemailer. What a driver does is in driver.ts.
 */

const From = {
  from: { ...Email, description: 'The address emails come from' },
  fromName: Type.Optional(Type.String({ maxLength: 200, description: 'The name shown beside it' })),
};

export const SandboxEmailOptions = Type.Object({
  ...From,
  from: { ...From.from, default: 'care-team@sandbox.invalid' },
});

export const emailSlot = providerSlot<EmailDriver, EmailEnv>(
  'email',
  {
    sandbox: {
      description: 'Records each email in the sandbox outbox (ACCEPTED until told to deliver, bounce or fail it); sends nothing.',
      options: SandboxEmailOptions,
      make: (options, env) => sandboxEmail(options, env),
    },
    smtp: {
      description: 'Sends through an SMTP relay (nodemailer, pooled connections); DELIVERED once the relay accepts it.',
      options: Type.Object({ ...SmtpOptions.properties, ...From }),
      secrets: ['password', 'inboundSecret'],
      make: (options, env, level) => smtpEmail(options, env, level),
    },
  },
  settingsSection(
    'email',
    Type.Object({
      CAIRN_EMAIL_FROM: Type.String({ default: 'care-team@sandbox.invalid', description: 'The address emails come from.' }),
      CAIRN_EMAIL_FROM_NAME: Type.String({ default: '', description: 'The name shown beside it.' }),
      CAIRN_EMAIL_INBOUND_SECRET: Type.String({
        default: '',
        description: 'Standard Webhooks secret (whsec_…) that signs raw inbound emails posted to Cairn (smtp driver).',
      }),
      CAIRN_SMTP_HOST: Type.String({ default: '', description: 'SMTP relay host (CAIRN_EMAIL_DRIVER=smtp).' }),
      CAIRN_SMTP_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 587, description: 'SMTP port.' }),
      CAIRN_SMTP_SECURE: Type.Boolean({ default: false, description: 'TLS from the first byte (port 465); otherwise STARTTLS.' }),
      CAIRN_SMTP_REQUIRE_TLS: Type.Boolean({
        default: true,
        description: 'Refuse to send unless the connection is encrypted (STARTTLS); turn off only for a relay on the same host.',
      }),
      CAIRN_SMTP_TLS_REJECT_UNAUTHORIZED: Type.Boolean({
        default: true,
        description: "Check the relay's certificate (turn off only for a relay with a self-signed one).",
      }),
      CAIRN_SMTP_USER: Type.String({ default: '', description: 'SMTP user (AUTH); unset: no authentication.' }),
      CAIRN_SMTP_PASSWORD: Type.String({ default: '', description: 'SMTP password.' }),
      CAIRN_SMTP_MAX_CONNECTIONS: Type.Integer({
        minimum: 1,
        maximum: 50,
        default: 5,
        description: 'Connections each process keeps open to the relay.',
      }),
    }),
    (e) => {
      const from = { from: e.CAIRN_EMAIL_FROM, ...(e.CAIRN_EMAIL_FROM_NAME ? { fromName: e.CAIRN_EMAIL_FROM_NAME } : {}) };
      return {
        sandbox: from,
        smtp: {
          ...from,
          ...(e.CAIRN_SMTP_HOST ? { host: e.CAIRN_SMTP_HOST } : {}),
          port: e.CAIRN_SMTP_PORT,
          secure: e.CAIRN_SMTP_SECURE,
          requireTLS: e.CAIRN_SMTP_REQUIRE_TLS,
          tlsRejectUnauthorized: e.CAIRN_SMTP_TLS_REJECT_UNAUTHORIZED,
          ...(e.CAIRN_SMTP_USER ? { user: e.CAIRN_SMTP_USER, password: e.CAIRN_SMTP_PASSWORD } : {}),
          maxConnections: e.CAIRN_SMTP_MAX_CONNECTIONS,
          ...(e.CAIRN_EMAIL_INBOUND_SECRET ? { inboundSecret: e.CAIRN_EMAIL_INBOUND_SECRET } : {}),
        },
      };
    },
  ),
);
