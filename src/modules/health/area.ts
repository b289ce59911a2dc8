import type { Area } from '../../http/area.ts';
import routes from './routes.ts';

export const area: Area = { name: 'health', routes };
