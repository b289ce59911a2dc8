import { type AuditActionCatalog, registerAuditActions } from '../events/audit.ts';
import { fileErrors } from '../files/catalog.ts';
import { formationErrors } from '../formation/errors.ts';
import { type PermissionCatalog, registerPermissions } from '../formation/permissions.ts';
import { recordAuditActions, recordErrors } from '../records/catalog.ts';
import { coreErrors, type ErrorCatalog, registerErrors } from '../wire/errors.ts';
import type { AreaPlugin } from './plugin.ts';

/**
 * An area of the API (a folder under src/modules), as the app takes it: its routes, and what
 * they add to the shared catalogs, declared beside them. A new area is one more entry in
 * src/areas.ts; it edits no central file.
 */
export interface Area {
  name: string;
  routes: AreaPlugin;
  /** The permissions its routes need, with what each grants. */
  permissions?: PermissionCatalog;
  /** The error codes it answers with, beyond the shared ones. */
  errors?: ErrorCatalog;
  /** The audit actions it writes, with what each records. */
  auditActions?: AuditActionCatalog;
}

export interface Catalogs {
  permissions: PermissionCatalog;
  errors: ErrorCatalog;
  auditActions: AuditActionCatalog;
}

/** The shared mechanisms' own codes and actions: the wire format's, the formation model's, the records kernel's and the files mechanism's. */
const platform: Area = {
  name: 'platform',
  routes: async () => {},
  errors: { ...coreErrors, ...formationErrors, ...recordErrors, ...fileErrors },
  auditActions: recordAuditActions,
};

/**
 * Merges the areas' declarations into one catalog of each kind, refusing a name two areas
 * declare, and makes them known at run time (permission names in formations, error codes,
 * audit actions). Safe to call again with the same areas (each test file builds its own app).
 */
export function mergeAreas(areas: readonly Area[]): Catalogs {
  const catalogs: Catalogs = { permissions: {}, errors: {}, auditActions: {} };
  const owners = new Map<string, string>();
  for (const area of [platform, ...areas]) {
    for (const kind of ['permissions', 'errors', 'auditActions'] as const) {
      for (const [name, entry] of Object.entries(area[kind] ?? {})) {
        const owner = owners.get(`${kind}/${name}`);
        if (owner) throw new Error(`${kind} ${name} is declared by both ${owner} and ${area.name}`);
        owners.set(`${kind}/${name}`, area.name);
        (catalogs[kind] as Record<string, unknown>)[name] = entry;
      }
    }
  }
  registerPermissions(catalogs.permissions);
  registerErrors(catalogs.errors);
  registerAuditActions(catalogs.auditActions);
  return catalogs;
}
