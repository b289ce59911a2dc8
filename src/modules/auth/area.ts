import type { Area } from '../../platform/area.ts';
import { authAuditActions, authErrors } from './catalog.ts';
import routes from './routes.ts';
import { tokenLimitSettings } from './settings.ts';

export const area: Area = {
  name: 'auth',
  routes,
  errors: authErrors,
  auditActions: authAuditActions,
  settings: tokenLimitSettings,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
