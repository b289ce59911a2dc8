import type { Permission } from '../formation/permissions.ts';
import type { CallerType } from '../tenancy/access.ts';

export interface RouteAccess {
  /** The one permission the route needs (DECISIONS §5). Absent only on public routes. */
  permission?: Permission;
  /** Open without a token (the token routes). */
  public?: boolean;
  /** Only this kind of caller may use the route (e.g. export is for API clients). */
  callers?: CallerType;
  /** A second permission some bodies need; the route's handler checks it. */
  alsoNeeds?: { permission: Permission; when: string };
}

const I = '/:tenantName/:instanceName';
const T = '/:tenantName/admin';
const P = `${I}/patients/:patientId`;

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
  [`GET ${I}/export/formations/:version/assessments`]: { permission: 'FORMATION_READ' },

  // Users and territories (001 "Users", DECISIONS §7)
  [`GET ${T}/users`]: { permission: 'USER_READ' },
  [`POST ${T}/users`]: {
    permission: 'USER_PROVISION',
    alsoNeeds: { permission: 'USER_REGIONS', when: "the body changes the user's territories" },
  },
  [`GET ${T}/users/:userName`]: { permission: 'USER_READ' },
  [`PATCH ${T}/users/:userName`]: {
    permission: 'USER_PROVISION',
    alsoNeeds: { permission: 'USER_REGIONS', when: "the body changes the user's territories" },
  },
  [`PUT ${T}/users/:userName`]: {
    permission: 'USER_PROVISION',
    alsoNeeds: { permission: 'USER_REGIONS', when: "the body changes the user's territories" },
  },
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

  // Patient programs (001, DECISIONS §7–8)
  [`GET ${P}/programs`]: { permission: 'PROGRAM_READ' },
  [`GET ${P}/programs/current/:programName`]: { permission: 'PROGRAM_READ' },
  [`GET ${P}/programs/history/:enrollmentId`]: { permission: 'PROGRAM_READ' },
  [`PATCH ${P}/programs/:programName`]: { permission: 'PROGRAM_UPDATE' },
  [`PATCH ${P}/programs/:programName/phases`]: { permission: 'PROGRAM_UPDATE' },
  [`DELETE ${P}/programs/:programName`]: { permission: 'PROGRAM_UPDATE' },

  // Care plan (001, DECISIONS §7)
  [`GET ${P}/care-plan`]: { permission: 'CARE_PLAN_READ' },
  [`POST ${P}/care-plan/overview`]: { permission: 'CARE_PLAN_UPDATE' },
  [`PUT ${P}/care-plan/overview`]: { permission: 'CARE_PLAN_UPDATE' },
  [`GET ${P}/care-plan/goals`]: { permission: 'CARE_PLAN_READ' },
  [`POST ${P}/care-plan/goals`]: { permission: 'CARE_PLAN_UPDATE' },
  [`GET ${P}/care-plan/goals/:goalId`]: { permission: 'CARE_PLAN_READ' },
  [`PATCH ${P}/care-plan/goals/:goalId`]: { permission: 'CARE_PLAN_UPDATE' },
  [`GET ${P}/care-plan/goals/:goalId/tasks`]: { permission: 'CARE_PLAN_READ' },
  [`POST ${P}/care-plan/goals/:goalId/tasks`]: { permission: 'CARE_PLAN_UPDATE' },
  [`GET ${P}/care-plan/goals/:goalId/comments`]: { permission: 'CARE_PLAN_READ' },
  [`POST ${P}/care-plan/goals/:goalId/comments`]: { permission: 'CARE_PLAN_UPDATE' },

  // Tasks (001, DECISIONS §7)
  [`GET ${I}/tasks`]: { permission: 'TASK_READ' },
  [`POST ${I}/tasks`]: { permission: 'TASK_UPDATE' },
  [`PATCH ${I}/tasks`]: { permission: 'TASK_UPDATE' },
  [`GET ${I}/tasks/:taskId`]: { permission: 'TASK_READ' },
  [`PATCH ${I}/tasks/:taskId`]: { permission: 'TASK_UPDATE' },
  [`PATCH ${I}/tasks/:taskId/watchers`]: { permission: 'TASK_UPDATE' },
  [`DELETE ${I}/tasks/:taskId/watchers/:watcherId`]: { permission: 'TASK_UPDATE' },
  [`PATCH ${I}/tasks/:taskId/comments`]: { permission: 'TASK_UPDATE' },
  [`DELETE ${I}/tasks/:taskId/comments/:commentId`]: { permission: 'TASK_UPDATE' },

  // Contacts (001, 000: "General - My Patients - Read and Update", DECISIONS §8)
  [`GET ${P}/contacts`]: { permission: 'GENERAL_MY_PATIENTS_READ_UPDATE' },
  [`POST ${P}/contacts`]: { permission: 'GENERAL_MY_PATIENTS_READ_UPDATE' },
  [`GET ${P}/contacts/:contactId`]: { permission: 'GENERAL_MY_PATIENTS_READ_UPDATE' },
  [`PATCH ${P}/contacts/:contactId`]: { permission: 'GENERAL_MY_PATIENTS_READ_UPDATE' },

  // PDT records (001)
  [`GET ${I}/pdts/:pdtName`]: { permission: 'PDT_READ' },
  [`POST ${I}/pdts/:pdtName`]: { permission: 'PDT_UPDATE' },
  [`GET ${I}/pdts/:pdtName/:pdtId`]: { permission: 'PDT_READ' },
  [`PATCH ${I}/pdts/:pdtName/:pdtId`]: { permission: 'PDT_UPDATE' },
  [`DELETE ${I}/pdts/:pdtName/:pdtId`]: { permission: 'PDT_UPDATE' },
  [`GET ${I}/pdts/:pdtName/:pdtId/patients`]: { permission: 'PDT_READ' },

  // CDT records (001, DECISIONS §7)
  [`GET ${P}/cdts/:cdtName`]: { permission: 'CDT_READ' },
  [`POST ${P}/cdts/:cdtName`]: { permission: 'CDT_UPDATE' },
  [`PATCH ${P}/cdts/:cdtName`]: { permission: 'CDT_UPDATE' },
  [`GET ${P}/cdts/:cdtName/:recordId`]: { permission: 'CDT_READ' },
  [`PATCH ${P}/cdts/:cdtName/:recordId`]: { permission: 'CDT_UPDATE' },
  [`DELETE ${P}/cdts/:cdtName/:recordId`]: { permission: 'CDT_UPDATE' },

  // Dictionary values (001; the dictionary formations are read through the formation routes)
  [`GET ${I}/dictionaries/:dictionaryName`]: { permission: 'DICTIONARY_READ' },
  [`POST ${I}/dictionaries/:dictionaryName`]: { permission: 'DICTIONARY_UPDATE' },
  [`PUT ${I}/dictionaries/:dictionaryName`]: { permission: 'DICTIONARY_UPDATE' },
  [`GET ${I}/dictionaries/:dictionaryName/:recordId`]: { permission: 'DICTIONARY_READ' },
  [`PUT ${I}/dictionaries/:dictionaryName/:recordId`]: { permission: 'DICTIONARY_UPDATE' },
  [`DELETE ${I}/dictionaries/:dictionaryName/:recordId`]: { permission: 'DICTIONARY_UPDATE' },

  // Audit (DECISIONS §7)
  [`GET ${T}/audit-data`]: { permission: 'AUDIT_READ' },
};

export function routeAccess(method: string, url: string): RouteAccess | undefined {
  return accessTable[`${method} ${url}`];
}
