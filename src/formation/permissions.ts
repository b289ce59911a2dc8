/**
 * The permissions a security policy can grant (DECISIONS §5). Roles group policies and policies
 * grant these; both are defined in each instance's formation. The names of 000 map as follows:
 * "General - My Patients - Read and Update" is GENERAL_MY_PATIENTS_READ_UPDATE, "User Provision"
 * is USER_PROVISION and "User Regions" is USER_REGIONS.
 */
export const permissionCatalog = {
  PATIENT_READ: 'Read patients and search them',
  PATIENT_CREATE: 'Create patients',
  PATIENT_UPDATE: 'Change patients, one or in bulk (care teams, territories, cadence)',
  PATIENT_DELETE: 'Delete patients',
  USER_READ: 'Read users and their territories',
  USER_PROVISION: 'Create, change and delete users, and set their passwords (000: User Provision)',
  USER_REGIONS: "Write users' regions and territories (000: User Regions)",
  FORMATION_READ: "Read the instance's formation (configuration)",
  FORMATION_WRITE: 'Edit and publish the formation draft',
  AUDIT_READ: 'Read the audit log',
  PROGRAM_READ: "Read patients' program enrolments",
  PROGRAM_UPDATE: 'Enrol and unassign patients, and move them between phases',
  CARE_PLAN_READ: "Read patients' care plans, goals and goal comments",
  CARE_PLAN_UPDATE: 'Write care plan overviews, goals, goal tasks and goal comments',
  TASK_READ: 'Search and read tasks',
  TASK_UPDATE: 'Create and change tasks, their watchers and comments',
  GENERAL_MY_PATIENTS_READ_UPDATE: "Read and change patients' contacts (000: General - My Patients - Read and Update)",
  PDT_READ: 'Read profile data (PDT) records',
  PDT_UPDATE: 'Create, change and delete profile data (PDT) records',
  CDT_READ: "Read patients' custom data (CDT) records",
  CDT_UPDATE: "Create, change and delete patients' custom data (CDT) records",
  DICTIONARY_READ: 'Read dictionary values',
  DICTIONARY_UPDATE: 'Add, replace and delete dictionary values',
} as const;

export type Permission = keyof typeof permissionCatalog;

export const allPermissions = Object.keys(permissionCatalog) as Permission[];

export function isPermission(name: string): name is Permission {
  return Object.hasOwn(permissionCatalog, name);
}
