import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';
import { providerSlot } from '../slot.ts';
import type { PaymentsDriver, PaymentsEnv } from './driver.ts';
import { sandboxPayments } from './sandbox.ts';
import { StripeOptions, stripePayments } from './stripe.ts';

/** The payments channel in the provider slot: the sandbox (the default) and Stripe. What a driver does is in driver.ts. */
export const paymentsSlot = providerSlot<PaymentsDriver, PaymentsEnv>(
  'payments',
  {
    sandbox: {
      description:
        "Moves no money: takes Stripe's test method ids (pm_card_visa, ...) and refuses the declined ones as Stripe does.",
      options: Type.Object({}),
      make: (_options, env) => sandboxPayments(env),
    },
    stripe: {
      description:
        "Customers, off-session charges and subscription schedules at Stripe (the stripe SDK); Stripe's webhooks come back signed.",
      options: StripeOptions,
      secrets: ['secretKey', 'webhookSecret'],
      serverOnly: ['apiUrl'],
      make: (options) => stripePayments(options),
    },
  },
  settingsSection(
    'payments',
    Type.Object({
      CAIRN_STRIPE_SECRET_KEY: Type.String({ default: '', description: 'Stripe secret key (CAIRN_PAYMENTS_DRIVER=stripe).' }),
      CAIRN_STRIPE_WEBHOOK_SECRET: Type.String({
        default: '',
        description: "The Stripe webhook endpoint's signing secret (whsec_...).",
      }),
      CAIRN_STRIPE_API_URL: Type.String({
        default: 'https://api.stripe.com',
        description: "Stripe's API address (a local fake in tests).",
      }),
    }),
    (e) => ({
      sandbox: {},
      stripe: {
        ...(e.CAIRN_STRIPE_SECRET_KEY ? { secretKey: e.CAIRN_STRIPE_SECRET_KEY } : {}),
        ...(e.CAIRN_STRIPE_WEBHOOK_SECRET ? { webhookSecret: e.CAIRN_STRIPE_WEBHOOK_SECRET } : {}),
        apiUrl: e.CAIRN_STRIPE_API_URL,
      },
    }),
  ),
);
