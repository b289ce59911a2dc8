import type { Area } from '../../platform/area.ts';
import routes from './routes.ts';
import { exportSettings } from './settings.ts';

/** The bulk export's routes: what each area offers it is declared on that area (`exports`). */
export const area: Area = {
  name: 'export',
  routes,
  settings: exportSettings,
};
