import { uuidv7 } from '../../db/ids.ts';
import type { Work } from '../../events/work.ts';
import type { TenantContext } from '../../http/context.ts';
import { dataAndMeta, type Paging, parseSort } from '../../http/pagination.ts';
import { hashSecret, newClientKey, newSecret } from '../../tenancy/secrets.ts';
import { type GrantInput, replaceGrants } from '../../tenancy/store.ts';
import { listInstances } from '../../tenancy/tenancy.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { checkedJwks } from './jwks.ts';
import { refuseSelfLockOut } from './lock-out.ts';
import type { ApiClientFilter, ApiClientInputBody, ApiClientPatchBody, RoleInputBody } from './schemas.ts';
import {
  type ApiClientReadRow,
  insertClient,
  listClients as listClientRows,
  lockClient,
  nameTaken,
  readClient,
  sortableClientFields,
  updateClient as updateClientRow,
} from './store.ts';
import { clientView } from './views.ts';

/**
 * A tenant's API clients through its admin routes: each write a unit of work, audited, with its
 * event. The CLI's `client create` makes them too, outside any tenant's API (tenancy/store.ts).
 */

export async function listClients(ctx: TenantContext, filter: Omit<ApiClientFilter, 'page' | 'size'>, paging: Paging) {
  const { sort, ...rest } = filter;
  const { rows, total } = await listClientRows(ctx.db, ctx.tenant.id, rest, paging, parseSort(sort, sortableClientFields));
  return dataAndMeta(rows.map(clientView), total, paging);
}

export async function getClient(ctx: TenantContext, id: string) {
  const row = await readClient(ctx.db, ctx.tenant.id, id);
  if (!row) throw new ApiError('API_CLIENT_NOT_FOUND', { clientId: id });
  return clientView(row);
}

/** Each role names an instance of the tenant and a role of its current formation (400 naming each that does not). */
async function checkedRoles(ctx: TenantContext, roles: RoleInputBody[]): Promise<GrantInput[]> {
  const instances = new Map((await listInstances(ctx.db, ctx.tenant.id)).map((instance) => [instance.name, instance]));
  const problems: FieldError[] = [];
  const grants: GrantInput[] = [];
  for (const [index, role] of roles.entries()) {
    const instance = instances.get(role.instanceName);
    if (!instance) {
      problems.push({ path: `body.roles.${index}.instanceName`, message: `no instance "${role.instanceName}"` });
      continue;
    }
    const formation = await ctx.services.currentFormation(instance);
    if (!(formation.roles ?? []).some((entry) => entry.name === role.permissionName)) {
      problems.push({
        path: `body.roles.${index}.permissionName`,
        message: `no role "${role.permissionName}" in ${instance.name}`,
      });
      continue;
    }
    // As `cairn client create` grants them: a client's roles are all primary, without dates.
    grants.push({ instanceId: instance.id, type: 'SECURITY_ROLE', name: role.permissionName, primaryRole: true });
  }
  if (problems.length > 0) throw validationError(problems);
  return grants;
}

async function requireFreeName(w: Work, ctx: TenantContext, name: string, exceptId?: string): Promise<void> {
  if (await nameTaken(w.db, ctx.tenant.id, name, exceptId)) {
    throw new ApiError('DUPLICATE_VALUE', { field: 'name' }, 'An API client with this name already exists in the tenant');
  }
}

/** The client read again inside the write, with its roles (the transaction's own view of it). */
async function readBack(w: Work, ctx: TenantContext, id: string): Promise<ApiClientReadRow> {
  const row = await readClient(w.db, ctx.tenant.id, id);
  if (!row) throw new Error(`API client ${id} vanished inside its own write`);
  return row;
}

/**
 * POST: a new client with a new key and secret; the answer is the only time the secret is shown
 * (000 auth rule 4: only its scrypt hash is stored, as the CLI stores it).
 */
export async function createClient(ctx: TenantContext, body: ApiClientInputBody) {
  const grants = await checkedRoles(ctx, body.roles);
  const jwks = body.jwks && (await checkedJwks(body.jwks));
  const secret = newSecret();
  // scrypt takes ~60 ms on the thread pool: done before the transaction opens, not inside it.
  const secretHash = await hashSecret(secret);
  const row = await write(ctx, async (w) => {
    await requireFreeName(w, ctx, body.name);
    const id = uuidv7();
    await insertClient(w, { tenantId: ctx.tenant.id, id, name: body.name, clientKey: newClientKey(), secretHash, jwks });
    await replaceGrants(w, ctx.tenant.id, { type: 'API_CLIENT', id }, grants, ['SECURITY_ROLE']);
    w.changed({ action: 'API_CLIENT_CREATED', entityType: 'API_CLIENT', entityId: id });
    return readBack(w, ctx, id);
  });
  return { ...clientView(row), secret };
}

/**
 * PATCH: the keys given. Roles and the key set (`jwks`) are each replaced as a whole; disabling refuses new tokens and ends the
 * client's tokens at once (the access hook checks `active` on every request). A client may not
 * lock itself out (lock-out.ts).
 */
export async function updateClient(ctx: TenantContext, id: string, body: ApiClientPatchBody) {
  const grants = body.roles !== undefined ? await checkedRoles(ctx, body.roles) : undefined;
  const jwks = body.jwks && (await checkedJwks(body.jwks));
  await refuseSelfLockOut(ctx, id, { enabled: body.enabled, grants });
  const changedFields = (['name', 'enabled', 'roles', 'jwks'] as const).filter((key) => body[key] !== undefined);
  const row = await write(ctx, async (w) => {
    const existing = await lockClient(w.db, ctx.tenant.id, id);
    if (!existing) throw new ApiError('API_CLIENT_NOT_FOUND', { clientId: id });
    // Nothing to change (a body without writable keys): no write, no audit row, no event.
    if (changedFields.length === 0) return readBack(w, ctx, id);
    if (body.name !== undefined) await requireFreeName(w, ctx, body.name, id);
    await updateClientRow(w, existing, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.jwks !== undefined ? { jwks: jwks ? JSON.stringify(jwks) : null } : {}),
    });
    if (grants) await replaceGrants(w, ctx.tenant.id, { type: 'API_CLIENT', id }, grants, ['SECURITY_ROLE']);
    w.changed({ action: 'API_CLIENT_UPDATED', entityType: 'API_CLIENT', entityId: id, changedFields: [...changedFields] });
    return readBack(w, ctx, id);
  });
  // Every node's cached access ends at once (http/cache-invalidation.ts).
  if (changedFields.length > 0) await ctx.services.forgetCaches();
  return clientView(row);
}

/**
 * A new secret, answered once. The old one signs in no more; tokens it got stay valid until they
 * expire (an hour at most): disabling the client is what ends them at once.
 */
export async function rotateSecret(ctx: TenantContext, id: string) {
  const secret = newSecret();
  const secretHash = await hashSecret(secret);
  const row = await write(ctx, async (w) => {
    const existing = await lockClient(w.db, ctx.tenant.id, id);
    if (!existing) throw new ApiError('API_CLIENT_NOT_FOUND', { clientId: id });
    await updateClientRow(w, existing, { secret_hash: secretHash });
    w.changed({ action: 'API_CLIENT_SECRET_ROTATED', entityType: 'API_CLIENT', entityId: id });
    return readBack(w, ctx, id);
  });
  return { ...clientView(row), secret };
}
