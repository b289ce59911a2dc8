import type { Area } from '../../platform/area.ts';
import { documentFiles, documentsAuditActions, documentsPermissions } from './catalog.ts';
import { documentTypesSection } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'documents',
  routes,
  formation: [documentTypesSection],
  permissions: documentsPermissions,
  auditActions: documentsAuditActions,
  files: documentFiles,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
