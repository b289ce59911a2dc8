import type { Static } from 'typebox';
import type { InstancePhone } from '../../formation/schemas.ts';

/**
 * Views (migration 0053) giving the tenancy tables the shape a FHIR resource is read from
 * (tenant_id, id, updated_at; instance_id for an instance's): FHIR's Organization.
 */

export interface FhirTenantOrganizationsView {
  tenant_id: string;
  id: string;
  name: string;
  title: string;
  updated_at: Date;
}

export interface FhirInstanceOrganizationsView {
  tenant_id: string;
  id: string;
  instance_id: string;
  name: string;
  description: string | null;
  /** The published formation's `instancePhones`, null before a formation is published. */
  phones: Static<typeof InstancePhone>[] | null;
  /** The instance's creation or its formation's last publication, whichever is later. */
  updated_at: Date;
}

declare module '../../db/schema.ts' {
  interface DB {
    fhir_tenant_organizations: FhirTenantOrganizationsView;
    fhir_instance_organizations: FhirInstanceOrganizationsView;
  }
}
