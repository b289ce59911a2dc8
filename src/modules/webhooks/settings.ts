import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';

/** Where webhooks may post, and how long a receiver may take: the webhooks area's settings. */
export const webhookSettings = settingsSection(
  'webhooks',
  Type.Object({
    CAIRN_WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({
      default: false,
      description:
        'Let webhooks post to loopback, link-local and private addresses (receivers on the same network); off, only public addresses are reached.',
    }),
    CAIRN_WEBHOOKS_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description: 'How long a receiver may take to answer a delivery (redirects included) before the attempt fails.',
    }),
  }),
  (e) => ({ allowPrivate: e.CAIRN_WEBHOOKS_ALLOW_PRIVATE, timeoutMs: e.CAIRN_WEBHOOKS_TIMEOUT_MS }),
);

export type WebhookSettings = ReturnType<typeof webhookSettings.read>;
