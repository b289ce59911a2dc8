import type { Area } from '../../platform/area.ts';
import routes from './routes.ts';

export const area: Area = { name: 'health', routes };
