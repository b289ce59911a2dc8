import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import { twilioAccountOf, twilioVariables } from '../twilio.ts';
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
      ...twilioVariables,
      CAIRN_TWILIO_MESSAGING_SERVICE_SID: Type.String({
        default: '',
        description: 'Send SMS through this messaging service (MG…) rather than from the instance phone.',
      }),
    }),
    (e) => ({
      sandbox: {},
      twilio: {
        ...twilioAccountOf(e),
        ...(e.CAIRN_TWILIO_MESSAGING_SERVICE_SID ? { messagingServiceSid: e.CAIRN_TWILIO_MESSAGING_SERVICE_SID } : {}),
      },
    }),
  ),
);
