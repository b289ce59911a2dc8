import { Type } from 'typebox';
import { settingsSection } from '../config.ts';

/** What every channel's drivers share: where a tenant's own configuration may reach, and where vendors reach Cairn. */
export const providerSettings = settingsSection(
  'providers',
  Type.Object({
    CAIRN_PROVIDERS_ALLOW_PRIVATE: Type.Boolean({
      default: false,
      description:
        'Let the servers a tenant configures (its SMTP relay) be on loopback, link-local or private addresses; off, only public ones are reached. The server’s own configuration is always trusted.',
    }),
    CAIRN_PUBLIC_URL: Type.String({
      default: '',
      description:
        'The address vendors reach this server at (https://cairn.example.org): their callbacks (delivery reports, inbound SMS and calls) and the links they fetch files by. Unset: no callbacks are asked for.',
    }),
  }),
  (e) => ({ allowPrivate: e.CAIRN_PROVIDERS_ALLOW_PRIVATE, publicUrl: e.CAIRN_PUBLIC_URL.replace(/\/+$/, '') }),
);
