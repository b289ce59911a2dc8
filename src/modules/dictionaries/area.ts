import type { Area } from '../../platform/area.ts';
import { dictionariesAuditActions, dictionariesPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'dictionaries',
  routes,
  permissions: dictionariesPermissions,
  auditActions: dictionariesAuditActions,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
