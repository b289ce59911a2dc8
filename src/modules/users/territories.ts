import type { Writing } from '../../events/work.ts';
import type { TenantContext } from '../../http/context.ts';
import type { Services } from '../../http/services.ts';
import { type Instance, listInstances } from '../../tenancy/tenancy.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import type { UserInput } from './schemas.ts';
import { findUser, writeTerritories } from './store.ts';
import type { UserTerritoryEntry } from './tables.ts';
import { territoriesRecordView } from './views.ts';

/**
 * A user's regions and territories (001 "Users"): checked against each instance's formation,
 * stamped per entry, and written with the user or on their own (`PUT /user-territories`).
 */

type TerritoryEntryInput = { name: string; territories: string[]; instanceName: string };

/** Every region and territory must exist in that instance's current formation. */
export async function territoryProblems(
  services: Services,
  instances: Map<string, Instance>,
  entries: TerritoryEntryInput[],
  fullAccessInstances: string[],
  path: string,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [index, entry] of entries.entries()) {
    const instance = instances.get(entry.instanceName);
    if (!instance) {
      errors.push({ path: `${path}.territories.${index}.instanceName`, message: `no instance "${entry.instanceName}"` });
      continue;
    }
    const formation = await services.currentFormation(instance);
    const region = (formation.territories ?? []).find((candidate) => candidate.name === entry.name);
    if (!region) {
      errors.push({ path: `${path}.territories.${index}.name`, message: `no region "${entry.name}" in ${instance.name}` });
      continue;
    }
    for (const territory of entry.territories) {
      if (!region.territories.includes(territory)) {
        errors.push({
          path: `${path}.territories.${index}.territories`,
          message: `no territory "${territory}" in region "${entry.name}"`,
        });
      }
    }
  }
  for (const [index, name] of fullAccessInstances.entries()) {
    if (!instances.has(name))
      errors.push({ path: `${path}.fullTerritoriesAccessInstances.${index}`, message: `no instance "${name}"` });
  }
  return errors;
}

/** What a user's territories grant, ignoring order and stamps: sent-back records compare equal. */
function territoryKey(entries: TerritoryEntryInput[], fullAccess?: string[] | null) {
  const regions = entries.map((entry) => [entry.instanceName, entry.name, [...entry.territories].sort()]);
  return JSON.stringify([
    regions.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [...(fullAccess ?? [])].sort(),
  ]);
}

/** Entries keep their createdAt when they were already there. */
function stampTerritories(
  entries: TerritoryEntryInput[],
  previous: UserTerritoryEntry[],
  actorId: string | null,
  at: Date,
): UserTerritoryEntry[] {
  const now = at.toISOString();
  return entries.map((entry) => {
    const before = previous.find((old) => old.name === entry.name && old.instanceName === entry.instanceName);
    return {
      name: entry.name,
      territories: entry.territories,
      instanceName: entry.instanceName,
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
      createdBy: before?.createdBy ?? actorId,
      updatedBy: actorId,
    };
  });
}

/**
 * The territories part of a user write. PUT (or a create) replaces them; PATCH only what it
 * names. Without USER_REGIONS they may be sent back, but not changed (000).
 */
export async function saveUserTerritories(
  w: Writing,
  tenantId: string,
  userId: string,
  body: Pick<UserInput, 'territories' | 'fullTerritoriesAccessInstances'>,
  options: { replacing: boolean; mayChange: boolean },
) {
  const previous = await w.db
    .selectFrom('user_territories')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const previousEntries = (previous?.territories ?? []) as UserTerritoryEntry[];
  const entries =
    body.territories !== undefined || options.replacing
      ? stampTerritories(body.territories ?? [], previousEntries, w.actor.id, w.now)
      : previousEntries;
  const fullAccess =
    body.fullTerritoriesAccessInstances !== undefined || options.replacing
      ? (body.fullTerritoriesAccessInstances ?? null)
      : (previous?.full_territories_access_instances ?? null);
  if (
    !options.mayChange &&
    territoryKey(entries, fullAccess) !== territoryKey(previousEntries, previous?.full_territories_access_instances)
  ) {
    throw new ApiError('ACCESS_DENIED', { permission: 'USER_REGIONS' }, 'The caller lacks the permission USER_REGIONS');
  }
  await writeTerritories(w, tenantId, userId, entries, fullAccess);
}

export async function getTerritories(ctx: TenantContext, userId: string) {
  const { services, tenant } = ctx;
  const user = await findUser(services.db, tenant.id, userId, 'ID');
  if (!user) throw new ApiError('USER_NOT_FOUND', {});
  const record = await services.db
    .selectFrom('user_territories')
    .selectAll()
    .where('tenant_id', '=', tenant.id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (!record) throw new ApiError('USER_TERRITORIES_NOT_FOUND', { userId });
  return territoriesRecordView({ ...record, territories: record.territories as UserTerritoryEntry[] });
}

/** 001: PUT user territories; every region and territory must exist in its instance's formation. */
export async function putTerritories(
  ctx: TenantContext,
  userId: string,
  body: {
    userId: string;
    territories: TerritoryEntryInput[];
    fullTerritoriesAccessInstances?: string[] | null;
  },
) {
  const { services, tenant, actor } = ctx;
  // UUIDs compare case-insensitively: the path may be upper case while the body is lower case.
  if (body.userId.toLowerCase() !== userId.toLowerCase())
    throw validationError([{ path: 'body.userId', message: 'must match the user id in the path' }]);
  const instances = new Map((await listInstances(services.db, tenant.id)).map((instance) => [instance.name, instance]));
  const problems = await territoryProblems(
    services,
    instances,
    body.territories,
    body.fullTerritoriesAccessInstances ?? [],
    'body',
  );
  if (problems.length > 0) throw validationError(problems);
  const record = await write(ctx, async (w) => {
    const user = await findUser(w.db, tenant.id, userId, 'ID', { forUpdate: true });
    if (!user) throw new ApiError('USER_NOT_FOUND', {});
    const previous = await w.db
      .selectFrom('user_territories')
      .select('territories')
      .where('tenant_id', '=', tenant.id)
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    const entries = stampTerritories(body.territories, (previous?.territories ?? []) as UserTerritoryEntry[], actor.id, w.now);
    const saved = await writeTerritories(w, tenant.id, user.id, entries, body.fullTerritoriesAccessInstances ?? null);
    w.changed({ action: 'USER_TERRITORIES_UPDATED', entityType: 'USER', entityId: user.id });
    return saved;
  });
  return territoriesRecordView({ ...record, territories: record.territories as UserTerritoryEntry[] });
}
