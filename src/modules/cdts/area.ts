import type { Area } from '../../platform/area.ts';
import { cdtsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'cdts',
  routes,
  permissions: cdtsPermissions,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
