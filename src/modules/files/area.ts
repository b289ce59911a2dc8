import type { Area } from '../../platform/area.ts';
import { filesPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'files',
  routes,
  permissions: filesPermissions,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
