import type { Permission } from './permissions.ts';
import type { CallerType } from './tokens.ts';

export interface RouteAccess {
  /** The one permission the route needs (DECISIONS §5). Absent only on public routes. */
  permission?: Permission;
  /** Open without a token (the token routes). */
  public?: boolean;
  /** Only this kind of caller may use the route (e.g. export is for API clients). */
  callers?: CallerType;
}

const I = '/:tenantName/:instanceName';
const T = '/:tenantName/admin';

/**
 * Every route under `/{tenantName}/` and the permission it needs: the single table of
 * DECISIONS §5. The API docs show each route's entry; start-up fails if a route has none.
 */
export const accessTable: Record<string, RouteAccess> = {
  // Token issue (DECISIONS §4)
  [`POST ${T}/api_clients/:clientName`]: { public: true },

  // Formation (DECISIONS §6)
  [`GET ${I}/formations/:version`]: { permission: 'FORMATION_READ' },
  [`GET ${I}/formations/:version/:section`]: { permission: 'FORMATION_READ' },
  [`GET ${I}/formations/:version/:section/:itemName`]: { permission: 'FORMATION_READ' },
  [`PUT ${I}/formations/draft`]: { permission: 'FORMATION_WRITE' },
  [`POST ${I}/formations/draft/publish`]: { permission: 'FORMATION_WRITE' },
  [`GET ${I}/export/formation_version`]: { permission: 'FORMATION_READ' },

  // Users and territories (001 "Users", DECISIONS §7)
  [`GET ${T}/users`]: { permission: 'USER_READ' },
  [`POST ${T}/users`]: { permission: 'USER_PROVISION' },
  [`GET ${T}/users/:userName`]: { permission: 'USER_READ' },
  [`PATCH ${T}/users/:userName`]: { permission: 'USER_PROVISION' },
  [`PUT ${T}/users/:userName`]: { permission: 'USER_PROVISION' },
  [`DELETE ${T}/users/:userName`]: { permission: 'USER_PROVISION' },
  [`PUT ${T}/users/:userName/password`]: { permission: 'USER_PROVISION' },
  [`GET ${T}/user-territories/:userId`]: { permission: 'USER_READ' },
  [`PUT ${T}/user-territories/:userId`]: { permission: 'USER_REGIONS' },

  // Patients (001 "Patients", DECISIONS §7–8)
  [`GET ${I}/patients`]: { permission: 'PATIENT_READ' },
  [`POST ${I}/patients`]: { permission: 'PATIENT_CREATE' },
  [`PATCH ${I}/patients`]: { permission: 'PATIENT_UPDATE' },
  [`POST ${I}/by-filter/patients`]: { permission: 'PATIENT_READ' },
  [`GET ${I}/patients/:patientId`]: { permission: 'PATIENT_READ' },
  [`PATCH ${I}/patients/:patientId`]: { permission: 'PATIENT_UPDATE' },
  [`DELETE ${I}/patients/:patientId`]: { permission: 'PATIENT_DELETE' },

  // Audit (DECISIONS §7)
  [`GET ${T}/audit-data`]: { permission: 'AUDIT_READ' },
};

export function routeAccess(method: string, url: string): RouteAccess | undefined {
  return accessTable[`${method} ${url}`];
}
