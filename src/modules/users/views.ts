import type { Tenant } from '../../tenancy/tenancy.ts';
import type { UserGrantJson, UserReadRow } from './store.ts';
import type { UserTerritoryEntry } from './tables.ts';

/** prod: unset optional keys are left out of a user object rather than written as null. */
const omitIfNull = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

const dateOf = (value: string | null) => (value === null ? null : new Date(value));

function grantView(grant: UserGrantJson) {
  return {
    permissionName: grant.name,
    instanceName: grant.instance_name,
    type: grant.grant_type,
    primaryRole: grant.primary_role,
    effectiveDate: dateOf(grant.effective_date),
    expirationDate: dateOf(grant.expiration_date),
    createdAt: new Date(grant.created_at),
    updatedAt: new Date(grant.updated_at),
  };
}

/** User rows, read with their grants and territories (store.ts#userRelations), as API objects: no query here. */
export function userViews(tenant: Tenant, rows: UserReadRow[]) {
  return rows.map((row) => {
    const userGrants = row.grants;
    const record = row.territory_record;
    const instances = new Map(userGrants.map((grant) => [grant.instance_id, grant]));
    return {
      id: row.id,
      username: row.username,
      email: row.email,
      phone: omitIfNull(row.phone),
      timezone: omitIfNull(row.timezone),
      locale: omitIfNull(row.locale),
      firstName: omitIfNull(row.first_name),
      lastName: omitIfNull(row.last_name),
      credentials: omitIfNull(row.credentials),
      terminologyName: omitIfNull(row.terminology_name),
      tenantName: tenant.name,
      enabled: row.enabled,
      mfaEnabled: row.mfa_enabled,
      statusType: row.status_type,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      createdByName: omitIfNull(row.created_by_name),
      updatedByName: omitIfNull(row.updated_by_name),
      _root_user: false,
      ssoAccess: row.sso_access,
      passwordAccess: row.password_access,
      userState: row.user_state,
      customUserAttributes: row.custom_user_attributes as Record<string, unknown>,
      allowedToReceiveCalls: row.allowed_to_receive_calls,
      territories: (record?.territories ?? []) as UserTerritoryEntry[],
      fullTerritoriesAccessInstances: omitIfNull(record?.full_territories_access_instances ?? null),
      roles: userGrants.filter((grant) => grant.grant_type === 'SECURITY_ROLE').map(grantView),
      policies: userGrants.filter((grant) => grant.grant_type === 'SECURITY_POLICY').map(grantView),
      seats: row.seats,
      seatAssignAllowed: row.seat_assign_allowed,
      applicationAccess: {
        id: row.application_access_id,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        userId: row.id,
        adminAccessEnabled: row.admin_access_enabled,
        auditSecurityAccessEnabled: row.audit_security_access_enabled,
        // A user may use the instances where it holds a role or policy.
        instanceAccesses: [...instances.values()].map((grant) => ({
          instanceId: grant.instance_id,
          instanceName: grant.instance_name,
          instanceDescription: grant.instance_description,
          userEmailWithInstanceDomain: row.email,
          workshopAccessEnabled: false,
          auditDataAccessEnabled: false,
          enabledTakenPersonally: false,
        })),
      },
      ...(row.deleted_at ? { deleted: true } : {}),
    };
  });
}

export function territoriesRecordView(record: {
  id: string;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  updated_by: string | null;
  user_id: string;
  territories: UserTerritoryEntry[];
  full_territories_access_instances: string[] | null;
}) {
  return {
    id: record.id,
    createdAt: record.created_at,
    updatedAt: record.updated_at,
    createdBy: record.created_by,
    updatedBy: record.updated_by,
    userId: record.user_id,
    territories: record.territories,
    fullTerritoriesAccessInstances: record.full_territories_access_instances ?? [],
  };
}
