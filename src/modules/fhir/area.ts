import type { Area } from '../../platform/area.ts';
import routes from './routes.ts';

/** FHIR R4 over the same store (docs/fhir.md): each instance's records as US Core resources, read-only. */
export const area: Area = {
  name: 'fhir',
  routes,
};
