import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import { TwilioOptions } from '../sms/twilio.ts';
import { twilioAccountOf, twilioVariables } from '../twilio.ts';
import type { VoiceDriver, VoiceEnv } from './driver.ts';
import { sandboxVoice } from './sandbox.ts';
import { twilioVoice } from './twilio.ts';

/** The voice channel in the provider slot: the sandbox (the default) and Twilio, on the same CAIRN_TWILIO_* account as SMS. */
export const voiceSlot = providerSlot<VoiceDriver, VoiceEnv>(
  'voice',
  {
    sandbox: {
      description:
        'Records each call in the sandbox outbox (QUEUED until told it completed, went unanswered or failed); calls no one.',
      options: Type.Object({}),
      make: (_options, env) => sandboxVoice(env),
    },
    twilio: {
      description:
        "Calls through Twilio's Calls API (the member's phone, then the patient's); progress and recordings come back signed.",
      options: TwilioOptions,
      secrets: ['authToken'],
      serverOnly: ['baseUrl'],
      make: (options) => twilioVoice(options),
    },
  },
  // The same Twilio account as the SMS slot's (CAIRN_TWILIO_*).
  settingsSection('phone', Type.Object(twilioVariables), (e) => ({ sandbox: {}, twilio: twilioAccountOf(e) })),
);
