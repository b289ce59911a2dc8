import type { Area } from '../../platform/area.ts';
import { appsAuditActions, appsErrors, appsEvents, appsPermissions } from './catalog.ts';
import { appTokens } from './oauth/tokens.ts';
import routes from './routes.ts';

/** SMART apps: registered by an administrator, let act for a user by each instance's authorization server. */
export const area: Area = {
  name: 'apps',
  routes,
  permissions: appsPermissions,
  errors: appsErrors,
  auditActions: appsAuditActions,
  events: appsEvents,
  opaqueTokens: appTokens,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
