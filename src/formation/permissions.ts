/**
 * The permissions security policies grant (DECISIONS §5); roles group policies, and both are
 * defined in each instance's formation. Each area declares the permissions its routes need,
 * with what they grant, beside its routes (`modules/<area>/catalog.ts`); the app merges them into
 * one catalog, each name once, which the API docs list. The names of 000 map as follows:
 * "General - My Patients - Read and Update" is GENERAL_MY_PATIENTS_READ_UPDATE, "User Provision"
 * is USER_PROVISION and "User Regions" is USER_REGIONS.
 */

/** Permission name → what it grants. */
export type PermissionCatalog = Record<string, string>;

/**
 * Every permission any area declares: an area adds its own with
 * `declare module '.../formation/permissions.ts' { interface Permissions extends NamesOf<typeof areaPermissions> {} }`
 * (`NamesOf` from wire/errors.ts).
 */
// biome-ignore lint/suspicious/noEmptyInterface: areas merge their permissions into it.
export interface Permissions {}
export type Permission = keyof Permissions & string;

const registered = new Map<string, string>();

/** Makes permissions known at run time (the app merges each area's once). */
export function registerPermissions(catalog: PermissionCatalog): void {
  for (const [name, grants] of Object.entries(catalog)) registered.set(name, grants);
}

export function isPermission(name: string): name is Permission {
  return registered.has(name);
}

/** Every permission known, with what it grants. */
export function permissionCatalog(): ReadonlyMap<string, string> {
  return registered;
}

export function allPermissions(): Permission[] {
  return [...registered.keys()] as Permission[];
}
