import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import type { SmsDriver, SmsEnv } from './driver.ts';
import { sandboxSms } from './sandbox.ts';
import { TwilioOptions, twilioSms } from './twilio.ts';

/** The SMS channel in the provider slot: the sandbox (the default) and Twilio. What a driver does is in driver.ts. */
export const smsSlot = providerSlot<SmsDriver, SmsEnv>(
  'sms',
  {
    sandbox: {
      description: 'Records each SMS in the sandbox outbox (ACCEPTED until told to deliver, bounce or fail it); sends nothing.',
      options: Type.Object({}),
      make: (_options, env) => sandboxSms(env),
    },
    twilio: {
      description:
        "Sends through Twilio's Messages API (the twilio SDK); Twilio's delivery reports and inbound messages come back signed.",
      options: TwilioOptions,
      secrets: ['authToken'],
      serverOnly: ['baseUrl'],
      make: (options) => twilioSms(options),
    },
  },
  settingsSection(
    'phone',
    Type.Object({
      CAIRN_TWILIO_ACCOUNT_SID: Type.String({
        default: '',
        description: 'Twilio account SID (CAIRN_SMS_DRIVER or CAIRN_VOICE_DRIVER twilio).',
      }),
      CAIRN_TWILIO_AUTH_TOKEN: Type.String({ default: '', description: 'Twilio auth token.' }),
      CAIRN_TWILIO_MESSAGING_SERVICE_SID: Type.String({
        default: '',
        description: 'Send SMS through this messaging service (MG…) rather than from the instance phone.',
      }),
      CAIRN_TWILIO_BASE_URL: Type.String({
        default: 'https://api.twilio.com',
        description: "Twilio's API address (a compatible endpoint, or a local fake in tests).",
      }),
    }),
    (e) => ({
      sandbox: {},
      twilio: {
        ...(e.CAIRN_TWILIO_ACCOUNT_SID ? { accountSid: e.CAIRN_TWILIO_ACCOUNT_SID } : {}),
        ...(e.CAIRN_TWILIO_AUTH_TOKEN ? { authToken: e.CAIRN_TWILIO_AUTH_TOKEN } : {}),
        ...(e.CAIRN_TWILIO_MESSAGING_SERVICE_SID ? { messagingServiceSid: e.CAIRN_TWILIO_MESSAGING_SERVICE_SID } : {}),
        baseUrl: e.CAIRN_TWILIO_BASE_URL,
      },
    }),
  ),
);
