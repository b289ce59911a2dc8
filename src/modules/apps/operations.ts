import { randomBytes } from 'node:crypto';
import { uuidv7 } from '../../db/ids.ts';
import type { Context, TenantContext } from '../../http/context.ts';
import { parseScope } from '../../http/scopes.ts';
import { newSecret } from '../../tenancy/secrets.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { findPatient } from '../patients/index.ts';
import { issueLaunch, LAUNCH_SECONDS } from './oauth/launch.ts';
import { IDENTITY_SCOPES } from './oauth/scopes.ts';
import type { AppInputBody, AppPatchBody } from './schemas.ts';
import {
  type AppRow,
  deleteApp as deleteAppRows,
  insertApp,
  listApps as listAppRows,
  nameTaken,
  readApp,
  updateApp as updateAppRow,
} from './store.ts';
import type { AppClientType } from './tables.ts';
import { appView } from './views.ts';

/**
 * The SMART apps of a tenant, through its admin routes: each write a unit of work, audited, with its
 * event. An app is the tenant's, for every instance: each instance's authorization server knows it.
 */

/** Far above a tenant's real number of apps; the list is not paged. */
const MAX_APPS = 500;

export async function listApps(ctx: TenantContext) {
  return { data: (await listAppRows(ctx.db, ctx.tenant.id, MAX_APPS)).map(appView) };
}

export async function getApp(ctx: TenantContext, id: string) {
  return appView(await existing(ctx, id));
}

async function existing(ctx: TenantContext, id: string): Promise<AppRow> {
  const row = await readApp(ctx.db, ctx.tenant.id, id);
  if (!row) throw new ApiError('APP_NOT_FOUND', { appId: id });
  return row;
}

/** URIs an app may register (redirects, its launch URL): https, or http to this machine (development); never a fragment. */
function uriProblems(uris: readonly string[], path: string, listed = true): FieldError[] {
  return uris.flatMap((uri, index) => {
    const at = listed ? `${path}.${index}` : path;
    const url = URL.parse(uri);
    const local = url?.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (!url || !(url.protocol === 'https:' || local)) return [{ path: at, message: 'must be https (or http on localhost)' }];
    if (url.hash) return [{ path: at, message: 'must not hold a fragment' }];
    return [];
  });
}

const scopeProblems = (scopes: readonly string[]): FieldError[] =>
  scopes.flatMap((scope, index) =>
    IDENTITY_SCOPES.includes(scope) || parseScope(scope)
      ? []
      : [{ path: `body.scopes.${index}`, message: `"${scope}" is no SMART scope Cairn knows` }],
  );

/** How the kind and the keys fit together: only an asymmetric app has keys, from one place. */
function keyProblems(type: AppClientType, jwks: unknown, jwksUri: unknown): FieldError[] {
  if (type === 'CONFIDENTIAL_ASYMMETRIC') {
    if (!jwks === !jwksUri) return [{ path: 'body.jwks', message: 'give jwks or jwksUri (one of them)' }];
    return [];
  }
  if (jwks || jwksUri) return [{ path: 'body.jwks', message: `a ${type} app has no keys` }];
  return [];
}

function check(problems: FieldError[]): void {
  if (problems.length > 0) throw validationError(problems);
}

/** A client_id no one guesses and every instance's server finds in its tenant. */
const newClientId = () => `app_${randomBytes(16).toString('base64url')}`;

/** POST: a confidential-symmetric app's secret is in the answer, this once; it is kept sealed, since OAuth compares it as given. */
export async function createApp(ctx: TenantContext, body: AppInputBody) {
  check([
    ...uriProblems(body.redirectUris, 'body.redirectUris'),
    ...uriProblems(body.launchUrl ? [body.launchUrl] : [], 'body.launchUrl', false),
    ...scopeProblems(body.scopes),
    ...keyProblems(body.clientType, body.jwks, body.jwksUri),
  ]);
  const secret = body.clientType === 'CONFIDENTIAL_SYMMETRIC' ? newSecret() : null;
  const now = ctx.services.clock.now();
  const row = await write(ctx, async (w) => {
    await requireFreeName(w.db, ctx, body.name);
    const id = uuidv7();
    await insertApp(w.db, {
      tenant_id: ctx.tenant.id,
      id,
      client_id: newClientId(),
      name: body.name,
      client_type: body.clientType,
      secret_sealed: secret ? ctx.services.sealer.seal({ secret }) : null,
      jwks: body.jwks ? JSON.stringify(body.jwks) : null,
      jwks_uri: body.jwksUri ?? null,
      redirect_uris: body.redirectUris,
      scopes: [...new Set(body.scopes)],
      launch_kinds: body.launchKinds ?? ['STANDALONE'],
      launch_url: body.launchUrl ?? null,
      created_at: now,
      updated_at: now,
    });
    w.changed({ action: 'APP_CREATED', entityType: 'APP', entityId: id });
    return readBack(w.db, ctx, id);
  });
  return { ...appView(row), clientSecret: secret };
}

export async function updateApp(ctx: TenantContext, id: string, body: AppPatchBody) {
  const fields = (['name', 'redirectUris', 'scopes', 'launchKinds', 'launchUrl', 'jwks', 'jwksUri', 'enabled'] as const).filter(
    (key) => body[key] !== undefined,
  );
  const row = await write(ctx, async (w) => {
    const app = await readApp(w.db, ctx.tenant.id, id);
    if (!app) throw new ApiError('APP_NOT_FOUND', { appId: id });
    if (fields.length === 0) return app;
    const jwks = body.jwks !== undefined ? body.jwks : app.jwks;
    const jwksUri = body.jwksUri !== undefined ? body.jwksUri : app.jwks_uri;
    check([
      ...uriProblems(body.redirectUris ?? [], 'body.redirectUris'),
      ...uriProblems(body.launchUrl ? [body.launchUrl] : [], 'body.launchUrl', false),
      ...scopeProblems(body.scopes ?? []),
      ...keyProblems(app.client_type, jwks, jwksUri),
    ]);
    if (body.name !== undefined) await requireFreeName(w.db, ctx, body.name, id);
    await updateAppRow(w.db, ctx.tenant.id, id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.redirectUris !== undefined ? { redirect_uris: body.redirectUris } : {}),
      ...(body.scopes !== undefined ? { scopes: [...new Set(body.scopes)] } : {}),
      ...(body.launchKinds !== undefined ? { launch_kinds: body.launchKinds } : {}),
      ...(body.launchUrl !== undefined ? { launch_url: body.launchUrl } : {}),
      ...(body.jwks !== undefined ? { jwks: body.jwks ? JSON.stringify(body.jwks) : null } : {}),
      ...(body.jwksUri !== undefined ? { jwks_uri: body.jwksUri } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      updated_at: w.now,
    });
    w.changed({ action: 'APP_UPDATED', entityType: 'APP', entityId: id, changedFields: [...fields] });
    return readBack(w.db, ctx, id);
  });
  return appView(row);
}

export async function rotateAppSecret(ctx: TenantContext, id: string) {
  const secret = newSecret();
  const row = await write(ctx, async (w) => {
    const app = await readApp(w.db, ctx.tenant.id, id);
    if (!app) throw new ApiError('APP_NOT_FOUND', { appId: id });
    if (app.client_type !== 'CONFIDENTIAL_SYMMETRIC') {
      throw validationError([{ path: 'appId', message: 'only a CONFIDENTIAL_SYMMETRIC app has a secret' }]);
    }
    await updateAppRow(w.db, ctx.tenant.id, id, { secret_sealed: ctx.services.sealer.seal({ secret }), updated_at: w.now });
    w.changed({ action: 'APP_SECRET_ROTATED', entityType: 'APP', entityId: id });
    return readBack(w.db, ctx, id);
  });
  return { ...appView(row), clientSecret: secret };
}

/** The app goes with every code, grant and token its authorization servers issued to it. */
export async function deleteApp(ctx: TenantContext, id: string): Promise<void> {
  await write(ctx, async (w) => {
    const app = await readApp(w.db, ctx.tenant.id, id);
    if (!app) throw new ApiError('APP_NOT_FOUND', { appId: id });
    await deleteAppRows(w.db, ctx.tenant.id, app);
    w.changed({ action: 'APP_DELETED', entityType: 'APP', entityId: id });
  });
}

async function requireFreeName(db: TenantContext['db'], ctx: TenantContext, name: string, exceptId?: string): Promise<void> {
  if (await nameTaken(db, ctx.tenant.id, name, exceptId)) {
    throw new ApiError('DUPLICATE_VALUE', { field: 'name' }, 'An app with this name already exists in the tenant');
  }
}

async function readBack(db: TenantContext['db'], ctx: TenantContext, id: string): Promise<AppRow> {
  const row = await readApp(db, ctx.tenant.id, id);
  if (!row) throw new Error(`app ${id} vanished inside its own write`);
  return row;
}

/**
 * EHR launch: a `launch` value for this app and a patient the caller may read, good for five
 * minutes and for the calling user only. The console opens the app's launch page with it and `iss`.
 */
/** The apps a patient's page may open (EHR launch): enabled, registered for it, with a launch URL; by name. */
export async function launchableApps(ctx: TenantContext) {
  const rows = await listAppRows(ctx.db, ctx.tenant.id, MAX_APPS);
  return rows
    .filter((row) => row.enabled && row.launch_kinds.includes('EHR') && row.launch_url)
    .map((row) => ({ id: row.id, name: row.name, launchUrl: row.launch_url ?? '' }));
}

export async function launchApp(ctx: Context, id: string, patientId: string, issuer: string) {
  const app = await existing(ctx, id);
  if (!app.enabled || !app.launch_kinds.includes('EHR')) {
    throw validationError([{ path: 'appId', message: 'this app is disabled or is not registered for EHR launch' }]);
  }
  const patient = await findPatient(ctx.db, ctx.scope, patientId);
  if (!patient || !ctx.can('PATIENT_READ')) throw new ApiError('PATIENT_NOT_FOUND', { id: patientId, type: 'ID' });
  const now = () => ctx.services.clock.now();
  const userId = ctx.caller?.type === 'USER' ? ctx.caller.id : null;
  const launch = await issueLaunch(ctx.db, ctx.scope, now, { patient: patient.id, clientId: app.client_id, userId });
  const url = app.launch_url ? new URL(app.launch_url) : undefined;
  url?.searchParams.set('iss', issuer);
  url?.searchParams.set('launch', launch);
  return { launch, iss: issuer, url: url?.href ?? null, expiresAt: new Date(now().getTime() + LAUNCH_SECONDS * 1000) };
}
