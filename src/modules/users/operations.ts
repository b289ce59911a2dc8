import type { Kysely } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, GrantType, RowUpdate, UsersTable } from '../../db/schema.ts';
import type { TenantContext } from '../../http/context.ts';
import type { Services } from '../../http/services.ts';
import { hashSecret } from '../../tenancy/secrets.ts';
import { type GrantInput, replaceGrants } from '../../tenancy/store.ts';
import { listInstances, type Tenant } from '../../tenancy/tenancy.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { readInstant } from '../../wire/schemas.ts';
import { write } from '../../work/write.ts';
import { removeSecondFactor } from '../auth/index.ts';
import { ensurePointOfContact, touchPatients } from '../patients/index.ts';
import { type GrantInputBody, type UserInput, UserPatch } from './schemas.ts';
import { findUser, readUser, type UserLookup, type UserRow } from './store.ts';
import { saveUserTerritories, territoryProblems } from './territories.ts';
import { userViews } from './views.ts';

type Columns = RowUpdate<'users'>;

/** The body keys a write can change; read-only and unknown keys are ignored (DECISIONS §10). */
const writableFields = new Set(Object.keys(UserPatch.properties));

/** What a new user (or a user replaced by PUT) has when the body leaves a field out. */
const defaults: Columns = {
  phone: null,
  timezone: null,
  locale: 'en-US',
  first_name: null,
  last_name: null,
  credentials: null,
  terminology_name: null,
  enabled: true,
  mfa_enabled: false,
  status_type: null,
  sso_access: false,
  password_access: true,
  custom_user_attributes: '{}',
  allowed_to_receive_calls: true,
  seats: [],
  seat_assign_allowed: false,
  admin_access_enabled: false,
  audit_security_access_enabled: false,
};

const columnOf = {
  username: 'username',
  email: 'email',
  phone: 'phone',
  timezone: 'timezone',
  locale: 'locale',
  firstName: 'first_name',
  lastName: 'last_name',
  credentials: 'credentials',
  terminologyName: 'terminology_name',
  enabled: 'enabled',
  mfaEnabled: 'mfa_enabled',
  statusType: 'status_type',
  ssoAccess: 'sso_access',
  passwordAccess: 'password_access',
  userState: 'user_state',
  allowedToReceiveCalls: 'allowed_to_receive_calls',
  seats: 'seats',
  seatAssignAllowed: 'seat_assign_allowed',
} as const satisfies Partial<Record<keyof UserInput, keyof UsersTable>>;

function userColumns(body: UserInput): Columns {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columnOf)) {
    if (Object.hasOwn(body, field)) columns[column] = (body as Record<string, unknown>)[field];
  }
  if (Object.hasOwn(body, 'locale')) columns.locale = body.locale ?? 'en-US';
  if (Object.hasOwn(body, 'seats')) columns.seats = body.seats ?? [];
  if (Object.hasOwn(body, 'customUserAttributes'))
    columns.custom_user_attributes = JSON.stringify(body.customUserAttributes ?? {});
  if (body.applicationAccess?.adminAccessEnabled !== undefined)
    columns.admin_access_enabled = body.applicationAccess.adminAccessEnabled;
  if (body.applicationAccess?.auditSecurityAccessEnabled !== undefined) {
    columns.audit_security_access_enabled = body.applicationAccess.auditSecurityAccessEnabled;
  }
  return columns as Columns;
}

/** Roles, policies and territories name instances and formation entries; each must exist (400 otherwise). */
async function checkedAccess(services: Services, tenantId: string, body: UserInput) {
  const instances = new Map((await listInstances(services.db, tenantId)).map((instance) => [instance.name, instance]));
  const errors: FieldError[] = [];
  const grants: GrantInput[] = [];
  const grantLists: [GrantType, GrantInputBody[] | null | undefined, string][] = [
    ['SECURITY_ROLE', body.roles, 'roles'],
    ['SECURITY_POLICY', body.policies, 'policies'],
  ];
  for (const [type, list, field] of grantLists) {
    for (const [index, grant] of (list ?? []).entries()) {
      const instance = instances.get(grant.instanceName);
      if (!instance) {
        errors.push({ path: `body.${field}.${index}.instanceName`, message: `no instance "${grant.instanceName}"` });
        continue;
      }
      const formation = await services.currentFormation(instance);
      const names = (type === 'SECURITY_ROLE' ? formation.roles : formation.securityPolicies) ?? [];
      if (!names.some((entry) => entry.name === grant.permissionName)) {
        errors.push({
          path: `body.${field}.${index}.permissionName`,
          message: `no ${type === 'SECURITY_ROLE' ? 'role' : 'security policy'} "${grant.permissionName}" in ${instance.name}`,
        });
        continue;
      }
      grants.push({
        instanceId: instance.id,
        type,
        name: grant.permissionName,
        primaryRole: grant.primaryRole ?? false,
        effectiveDate: grant.effectiveDate ? readInstant(grant.effectiveDate) : null,
        expirationDate: grant.expirationDate ? readInstant(grant.expirationDate) : null,
      });
    }
  }
  const territoryErrors = await territoryProblems(
    services,
    instances,
    body.territories ?? [],
    body.fullTerritoriesAccessInstances ?? [],
    'body',
  );
  if (errors.length + territoryErrors.length > 0) throw validationError(errors.concat(territoryErrors));
  return { grants, instances };
}

async function requireUnique(trx: Kysely<DB>, tenantId: string, columns: Columns, exceptId?: string) {
  for (const field of ['username', 'email'] as const) {
    const value = columns[field];
    if (typeof value !== 'string') continue;
    const other = await findUser(trx, tenantId, value, field === 'email' ? 'EMAIL' : 'USERNAME');
    if (other && other.id !== exceptId)
      throw new ApiError('DUPLICATE_VALUE', { field }, `A user with this ${field} already exists`);
  }
}

/** The user as the API shows it, read again with its grants and territories (one statement). */
async function viewOf(services: Services, tenant: Tenant, row: UserRow) {
  const [view] = userViews(tenant, [(await readUser(services.db, tenant.id, row.id, 'ID'))!]);
  return view!;
}

/** One statement: the user with its grants and territories. */
export async function getUser(ctx: TenantContext, key: string, lookup: UserLookup) {
  const row = await readUser(ctx.db, ctx.tenant.id, key, lookup);
  if (!row) throw new ApiError('USER_NOT_FOUND', {});
  return userViews(ctx.tenant, [row])[0]!;
}

/** POST creates a PROVISIONED user (001); PUT replaces one, absent fields taking their defaults. */
export async function saveUser(
  ctx: TenantContext,
  body: UserInput,
  target?: { key: string; lookup: UserLookup; replace: boolean },
) {
  const { services, tenant } = ctx;
  // 000: writing user territories needs User Regions; without it they must stay as they are.
  const mayChangeTerritories = ctx.can('USER_REGIONS');
  const { grants } = await checkedAccess(services, tenant.id, body);
  const row = await write(ctx, async (w) => {
    const trx = w.db;
    const existing = target && (await findUser(trx, tenant.id, target.key, target.lookup, { forUpdate: true }));
    if (target && !existing) throw new ApiError('USER_NOT_FOUND', {});
    const replacing = !existing || target?.replace === true;
    const columns: Columns = { ...(replacing ? defaults : {}), ...userColumns(body) };
    if (!existing) columns.user_state = 'PROVISIONED';
    await requireUnique(trx, tenant.id, columns, existing?.id);
    const id = existing?.id ?? uuidv7();
    const saved = existing
      ? await trx
          .updateTable('users')
          .set({ ...columns, ...w.updated() })
          .where('tenant_id', '=', tenant.id)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('users')
          .values({
            ...defaults,
            ...columns,
            username: body.username ?? '',
            email: body.email ?? '',
            tenant_id: tenant.id,
            id,
            application_access_id: uuidv7(),
            ...w.created(),
          } as never)
          .returningAll()
          .executeTakeFirstOrThrow();

    const grantTypes: GrantType[] = [];
    if (replacing || body.roles !== undefined) grantTypes.push('SECURITY_ROLE');
    if (replacing || body.policies !== undefined) grantTypes.push('SECURITY_POLICY');
    if (grantTypes.length > 0) {
      await replaceGrants(
        w,
        tenant.id,
        { type: 'USER', id },
        grants.filter((g) => grantTypes.includes(g.type)),
        grantTypes,
      );
    }
    if (replacing || body.territories !== undefined || body.fullTerritoriesAccessInstances !== undefined) {
      await saveUserTerritories(w, tenant.id, id, body, { replacing, mayChange: mayChangeTerritories });
    }
    w.changed({
      action: existing ? 'USER_UPDATED' : 'USER_CREATED',
      entityType: 'USER',
      entityId: id,
      // Only writable keys: clients send back whole records, whose read-only keys change nothing.
      changedFields: Object.keys(body).filter((key) => writableFields.has(key)),
    });
    return saved;
  });
  await services.forgetCaches();
  return viewOf(services, tenant, row);
}

/**
 * Deleting a user is soft: the row stays for the audit trail (and `includeDeleted`), the user can
 * no longer sign in, holds no roles, and leaves every care team it was on.
 */
export async function deleteUser(ctx: TenantContext, key: string, lookup: UserLookup) {
  const { services, tenant } = ctx;
  await write(ctx, async (w) => {
    const trx = w.db;
    const user = await findUser(trx, tenant.id, key, lookup, { forUpdate: true });
    if (!user) throw new ApiError('USER_NOT_FOUND', {});
    await trx
      .updateTable('users')
      .set({ deleted_at: w.now, enabled: false, ...w.updated() })
      .where('tenant_id', '=', tenant.id)
      .where('id', '=', user.id)
      .execute();
    await replaceGrants(w, tenant.id, { type: 'USER', id: user.id }, []);
    const left = await trx
      .deleteFrom('patient_care_team')
      .where('tenant_id', '=', tenant.id)
      .where('user_id', '=', user.id)
      .returning('patient_id')
      .execute();
    const patientIds = left.map((row) => row.patient_id);
    if (patientIds.length > 0) {
      // Leaving a care team changes the patient: its point of contact, updatedAt and audit trail.
      await ensurePointOfContact(trx, tenant.id, patientIds);
      await touchPatients(w, tenant.id, patientIds);
      w.changed(
        patientIds.map((id) => ({
          action: 'PATIENT_UPDATED',
          entityType: 'PATIENT',
          entityId: id,
          patientId: id,
          changedFields: ['careTeam'],
        })),
      );
    }
    w.changed({ action: 'USER_DELETED', entityType: 'USER', entityId: user.id });
  });
  await services.forgetCaches();
}

/** An administrator removes a user's second factor (a lost phone): the user then signs in with the password alone. */
export async function removeUserMfa(ctx: TenantContext, key: string, lookup: UserLookup): Promise<void> {
  const user = await findUser(ctx.db, ctx.tenant.id, key, lookup);
  if (!user) throw new ApiError('USER_NOT_FOUND', {});
  await removeSecondFactor(ctx, user.id);
}

export async function setPassword(ctx: TenantContext, key: string, lookup: UserLookup, password: string) {
  const { tenant } = ctx;
  const hash = await hashSecret(password);
  await write(ctx, async (w) => {
    const user = await findUser(w.db, tenant.id, key, lookup, { forUpdate: true });
    if (!user) throw new ApiError('USER_NOT_FOUND', {});
    await w.db
      .updateTable('users')
      .set({ password_hash: hash })
      .where('tenant_id', '=', tenant.id)
      .where('id', '=', user.id)
      .execute();
    w.changed({ action: 'USER_PASSWORD_SET', entityType: 'USER', entityId: user.id });
  });
}
