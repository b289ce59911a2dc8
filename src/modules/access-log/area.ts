import type { Area } from '../../platform/area.ts';
import { accessLogPermissions } from './catalog.ts';
import routes from './routes.ts';

/** The access log's read side: the platform writes it (http/access-log.ts), this area shows it. */
export const area: Area = {
  name: 'access-log',
  routes,
  permissions: accessLogPermissions,
};
