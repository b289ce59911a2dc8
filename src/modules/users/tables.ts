import type { Json, Timestamp } from '../../db/schema.ts';

/** The users area's tables, merged into the database's `DB` type. */

export interface UserTerritoryEntry {
  name: string;
  territories: string[];
  instanceName: string;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  updatedBy: string | null;
}

export interface UserTerritoriesTable {
  tenant_id: string;
  user_id: string;
  id: string;
  territories: Json<UserTerritoryEntry[]>;
  full_territories_access_instances: string[] | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  updated_by: string | null;
}

/** Derived from the territories record, for finding the users of a region by index. */
export interface UserRegionsTable {
  tenant_id: string;
  instance_name: string;
  region: string;
  user_id: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    user_territories: UserTerritoriesTable;
    user_regions: UserRegionsTable;
  }
}

/** A view (migration 0053): a user's roles in an instance, one row per user and instance, as FHIR's PractitionerRole reads them. */
export interface FhirPractitionerRolesView {
  tenant_id: string;
  instance_id: string;
  /** The user's id. */
  id: string;
  /** The role names, the primary role first. */
  roles: string[];
  updated_at: Date;
}

declare module '../../db/schema.ts' {
  interface DB {
    fhir_practitioner_roles: FhirPractitionerRolesView;
  }
}
