import { uuidv7 } from '../../../db/ids.ts';
import type { TenantContext } from '../../../http/context.ts';
import { ApiError, type FieldError, validationError } from '../../../wire/errors.ts';
import { write } from '../../../work/write.ts';
import type { IdentityProviderInputBody, IdentityProviderPatchBody, IdentityProviderView } from './schemas.ts';
import {
  deleteProvider,
  type IdentityProviderRow,
  insertProvider,
  listProviders,
  providerNameTaken,
  readProvider,
  updateProvider,
} from './store.ts';

/**
 * A tenant's single sign-on identity providers, through its admin routes: each write a unit of
 * work, audited, with its event. A provider is the tenant's: every instance's sign-in page offers it.
 */

/** Far above a tenant's real number of providers; the list is not paged. */
const MAX_PROVIDERS = 100;

/** Where the provider sends people back, for each instance of the tenant (the routes know the origin). */
export type RedirectUris = string[];

function viewOf(row: IdentityProviderRow, redirectUris: RedirectUris): IdentityProviderView {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretSet: row.client_secret_sealed !== null,
    matchClaim: row.match_claim,
    createUsers: row.create_users,
    enabled: row.enabled,
    redirectUris,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An issuer Cairn may discover: https, or http on this machine (development); no query, fragment or credentials. */
function issuerProblems(issuer: string | undefined): FieldError[] {
  if (issuer === undefined) return [];
  const url = URL.parse(issuer);
  const local = url?.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname);
  if (!url || !(url.protocol === 'https:' || local))
    return [{ path: 'body.issuer', message: 'must be https (or http on localhost)' }];
  if (url.search || url.hash || url.username || url.password) {
    return [{ path: 'body.issuer', message: 'must not hold a query, a fragment or credentials' }];
  }
  return [];
}

function check(problems: FieldError[]): void {
  if (problems.length > 0) throw validationError(problems);
}

export async function listIdentityProviders(ctx: TenantContext, redirectUris: RedirectUris) {
  const rows = await listProviders(ctx.db, ctx.tenant.id, MAX_PROVIDERS);
  return { data: rows.map((row) => viewOf(row, redirectUris)) };
}

export async function getIdentityProvider(ctx: TenantContext, id: string, redirectUris: RedirectUris) {
  const row = await readProvider(ctx.db, ctx.tenant.id, id);
  if (!row) throw new ApiError('IDENTITY_PROVIDER_NOT_FOUND', { providerId: id });
  return viewOf(row, redirectUris);
}

export async function createIdentityProvider(ctx: TenantContext, body: IdentityProviderInputBody, redirectUris: RedirectUris) {
  check(issuerProblems(body.issuer));
  const row = await write(ctx, async (w) => {
    await requireFreeName(w.db, ctx, body.name);
    const id = uuidv7();
    await insertProvider(w.db, {
      tenant_id: ctx.tenant.id,
      id,
      name: body.name,
      issuer: body.issuer,
      client_id: body.clientId,
      client_secret_sealed: body.clientSecret ? ctx.services.sealer.seal({ secret: body.clientSecret }) : null,
      match_claim: body.matchClaim ?? 'email',
      create_users: body.createUsers ?? false,
      enabled: body.enabled ?? true,
      created_at: w.now,
      updated_at: w.now,
    });
    w.changed({ action: 'IDENTITY_PROVIDER_CREATED', entityType: 'IDENTITY_PROVIDER', entityId: id });
    return readBack(w.db, ctx, id);
  });
  return viewOf(row, redirectUris);
}

export async function updateIdentityProvider(
  ctx: TenantContext,
  id: string,
  body: IdentityProviderPatchBody,
  redirectUris: RedirectUris,
) {
  const fields = (['name', 'issuer', 'clientId', 'clientSecret', 'matchClaim', 'createUsers', 'enabled'] as const).filter(
    (key) => body[key] !== undefined,
  );
  check(issuerProblems(body.issuer));
  const row = await write(ctx, async (w) => {
    const existing = await readProvider(w.db, ctx.tenant.id, id);
    if (!existing) throw new ApiError('IDENTITY_PROVIDER_NOT_FOUND', { providerId: id });
    if (fields.length === 0) return existing;
    if (body.name !== undefined) await requireFreeName(w.db, ctx, body.name, id);
    const secret = body.clientSecret;
    await updateProvider(w.db, ctx.tenant.id, id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.issuer !== undefined ? { issuer: body.issuer } : {}),
      ...(body.clientId !== undefined ? { client_id: body.clientId } : {}),
      ...(secret !== undefined ? { client_secret_sealed: secret ? ctx.services.sealer.seal({ secret }) : null } : {}),
      ...(body.matchClaim !== undefined ? { match_claim: body.matchClaim } : {}),
      ...(body.createUsers !== undefined ? { create_users: body.createUsers } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      updated_at: w.now,
    });
    w.changed({
      action: 'IDENTITY_PROVIDER_UPDATED',
      entityType: 'IDENTITY_PROVIDER',
      entityId: id,
      changedFields: [...fields],
    });
    return readBack(w.db, ctx, id);
  });
  return viewOf(row, redirectUris);
}

/** The provider goes with every link of its people to users; the users stay. */
export async function deleteIdentityProvider(ctx: TenantContext, id: string): Promise<void> {
  await write(ctx, async (w) => {
    const existing = await readProvider(w.db, ctx.tenant.id, id);
    if (!existing) throw new ApiError('IDENTITY_PROVIDER_NOT_FOUND', { providerId: id });
    await deleteProvider(w.db, ctx.tenant.id, id);
    w.changed({ action: 'IDENTITY_PROVIDER_DELETED', entityType: 'IDENTITY_PROVIDER', entityId: id });
  });
}

async function requireFreeName(db: TenantContext['db'], ctx: TenantContext, name: string, exceptId?: string) {
  if (await providerNameTaken(db, ctx.tenant.id, name, exceptId)) {
    throw new ApiError('DUPLICATE_VALUE', { field: 'name' }, 'An identity provider with this name already exists in the tenant');
  }
}

async function readBack(db: TenantContext['db'], ctx: TenantContext, id: string): Promise<IdentityProviderRow> {
  const row = await readProvider(db, ctx.tenant.id, id);
  if (!row) throw new Error(`identity provider ${id} vanished inside its own write`);
  return row;
}
