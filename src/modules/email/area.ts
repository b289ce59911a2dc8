import type { Area } from '../../platform/area.ts';
import { emailAuditActions, emailErrors, emailEvents, emailFiles, emailPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'email',
  routes,
  permissions: emailPermissions,
  errors: emailErrors,
  auditActions: emailAuditActions,
  events: emailEvents,
  files: emailFiles,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
