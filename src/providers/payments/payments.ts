import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import type { PaymentsDriver, PaymentsEnv } from './driver.ts';
import { sandboxPayments } from './sandbox.ts';

/** The payments channel in the provider slot: the sandbox (the default). What a driver does is in driver.ts. */
export const paymentsSlot = providerSlot<PaymentsDriver, PaymentsEnv>(
  'payments',
  {
    sandbox: {
      description:
        "Moves no money: takes Stripe's test method ids (pm_card_visa, ...) and refuses the declined ones as Stripe does.",
      options: Type.Object({}),
      make: (_options, env) => sandboxPayments(env),
    },
  },
  settingsSection('payments', Type.Object({}), () => ({ sandbox: {} })),
);
