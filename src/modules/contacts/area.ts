import type { Area } from '../../http/area.ts';
import { contactsAuditActions, contactsErrors, contactsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'contacts',
  routes,
  permissions: contactsPermissions,
  errors: contactsErrors,
  auditActions: contactsAuditActions,
};
