import type { Area } from '../../platform/area.ts';
import { pdtsPermissions } from './catalog.ts';
import { pdtRecordExport } from './export.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'pdts',
  routes,
  permissions: pdtsPermissions,
  exports: { PDT_RECORD: pdtRecordExport },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
