import type { Area } from '../../http/area.ts';
import { documentsAuditActions, documentsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'documents',
  routes,
  permissions: documentsPermissions,
  auditActions: documentsAuditActions,
};
