import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import type { FaxDriver, FaxEnv } from './driver.ts';
import { sandboxFax } from './sandbox.ts';
import { TelnyxOptions, telnyxFax } from './telnyx.ts';

/** The fax channel in the provider slot: the sandbox (the default) and Telnyx. What a driver does is in driver.ts. */
export const faxSlot = providerSlot<FaxDriver, FaxEnv>(
  'fax',
  {
    sandbox: {
      description: 'Records each fax in the sandbox outbox (SENDING until told it was delivered or failed); sends nothing.',
      options: Type.Object({}),
      make: (_options, env) => sandboxFax(env),
    },
    telnyx: {
      description: "Faxes through Telnyx's Programmable Fax API (the telnyx SDK); its webhooks come back signed (Ed25519).",
      options: TelnyxOptions,
      secrets: ['apiKey'],
      serverOnly: ['baseUrl'],
      make: (options) => telnyxFax(options),
    },
  },
  settingsSection(
    'phone',
    Type.Object({
      CAIRN_TELNYX_API_KEY: Type.String({ default: '', description: 'Telnyx API v2 key (CAIRN_FAX_DRIVER=telnyx).' }),
      CAIRN_TELNYX_FAX_CONNECTION_ID: Type.String({ default: '', description: 'The Telnyx fax application that sends.' }),
      CAIRN_TELNYX_PUBLIC_KEY: Type.String({ default: '', description: "Telnyx's public key (base64), checking its webhooks." }),
      CAIRN_TELNYX_BASE_URL: Type.String({
        default: 'https://api.telnyx.com/v2',
        description: "Telnyx's API address (a local fake in tests).",
      }),
    }),
    (e) => ({
      sandbox: {},
      telnyx: {
        ...(e.CAIRN_TELNYX_API_KEY ? { apiKey: e.CAIRN_TELNYX_API_KEY } : {}),
        ...(e.CAIRN_TELNYX_FAX_CONNECTION_ID ? { connectionId: e.CAIRN_TELNYX_FAX_CONNECTION_ID } : {}),
        ...(e.CAIRN_TELNYX_PUBLIC_KEY ? { publicKey: e.CAIRN_TELNYX_PUBLIC_KEY } : {}),
        baseUrl: e.CAIRN_TELNYX_BASE_URL,
      },
    }),
  ),
);
