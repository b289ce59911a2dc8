import type { ApiClientView } from './schemas.ts';
import type { ApiClientReadRow, RoleJson } from './store.ts';

const dateOf = (value: string | null) => (value === null ? null : new Date(value));

/** A role as a user's roles show it (users/views.ts#grantView). */
function roleView(role: RoleJson) {
  return {
    permissionName: role.name,
    instanceName: role.instance_name,
    type: 'SECURITY_ROLE',
    primaryRole: role.primary_role,
    effectiveDate: dateOf(role.effective_date),
    expirationDate: dateOf(role.expiration_date),
    createdAt: new Date(role.created_at),
    updatedAt: new Date(role.updated_at),
  };
}

/** A client as the API shows it: never its secret, nor the secret's hash. */
export function clientView(row: ApiClientReadRow): ApiClientView {
  return {
    id: row.id,
    name: row.name,
    clientKey: row.client_key,
    enabled: row.enabled,
    roles: row.roles.map(roleView),
    jwks: (row.jwks as ApiClientView['jwks']) ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
