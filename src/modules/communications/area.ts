import type { Area } from '../../platform/area.ts';
import { communicationsErrors, communicationsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'communications',
  routes,
  permissions: communicationsPermissions,
  errors: communicationsErrors,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
