import { Type } from 'typebox';
import { settingsSection } from '../config.ts';

/** What every channel's drivers share: where a tenant's own configuration may reach. */
export const providerSettings = settingsSection(
  'providers',
  Type.Object({
    CAIRN_PROVIDERS_ALLOW_PRIVATE: Type.Boolean({
      default: false,
      description:
        'Let the servers a tenant configures (its SMTP relay) be on loopback, link-local or private addresses; off, only public ones are reached. The server’s own configuration is always trusted.',
    }),
  }),
  (e) => ({ allowPrivate: e.CAIRN_PROVIDERS_ALLOW_PRIVATE }),
);
