import type { Area } from '../../platform/area.ts';
import { appsAuditActions, appsErrors, appsEvents, appsPermissions } from './catalog.ts';
import { appTokens } from './oauth/tokens.ts';
import routes from './routes.ts';
import { removeExpiredRecords } from './store.ts';

/** SMART apps: registered by an administrator, let act for a user by each instance's authorization server. */
export const area: Area = {
  name: 'apps',
  routes,
  permissions: appsPermissions,
  errors: appsErrors,
  auditActions: appsAuditActions,
  events: appsEvents,
  opaqueTokens: appTokens,
  jobs: {
    'apps.oauth-expire': {
      description: "Removes the authorization servers' expired records (codes, tokens, sessions, interactions)",
      run: (_job, services) => removeExpiredRecords(services.db, services.clock.now()),
      maxAttempts: 1,
      // Expired records are never found (adapter.ts); removing them late only keeps rows a while.
      everyMs: 10 * 60_000,
    },
  },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
