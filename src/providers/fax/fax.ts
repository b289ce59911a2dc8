import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import type { FaxDriver, FaxEnv } from './driver.ts';
import { sandboxFax } from './sandbox.ts';

/** The fax channel in the provider slot: the sandbox (the default). What a driver does is in driver.ts. */
export const faxSlot = providerSlot<FaxDriver, FaxEnv>(
  'fax',
  {
    sandbox: {
      description: 'Records each fax in the sandbox outbox (SENDING until told it was delivered or failed); sends nothing.',
      options: Type.Object({}),
      make: (_options, env) => sandboxFax(env),
    },
  },
  settingsSection('phone', Type.Object({}), () => ({ sandbox: {} })),
);
