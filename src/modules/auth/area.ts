import type { Area } from '../../http/area.ts';
import { authErrors } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'auth',
  routes,
  errors: authErrors,
};
