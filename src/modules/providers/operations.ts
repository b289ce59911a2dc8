import type { TObject } from 'typebox';
import { Value } from 'typebox/value';
import { settingsOf } from '../../config.ts';
import type { TenantContext } from '../../http/context.ts';
import type { Channel } from '../../providers/slot.ts';
import { type ProviderSettingsRow, TENANT_WIDE } from '../../providers/store.ts';
import { listInstances } from '../../tenancy/tenancy.ts';
import { ApiError, badField, validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import type { ProviderSettingsView, SettingsInputBody } from './schemas.ts';

/**
 * Which driver carries each outside service, per tenant or per instance (issue 16): an instance's
 * configuration, else its tenant's, else the server's. Credentials (the options a driver names as
 * secrets) are sealed at rest and never answered back; a PUT that leaves one out keeps the one
 * stored, so an administrator can change a host without typing the password again.
 */

function slotOf(ctx: TenantContext, channel: string): Channel {
  const slot = ctx.services.slots.find((candidate) => candidate.channel === channel);
  if (!slot) throw new ApiError('PROVIDER_CHANNEL_NOT_FOUND', { channel });
  return slot;
}

function secretsOf(slot: Channel, driver: string): readonly string[] {
  return (Object.hasOwn(slot.drivers, driver) && slot.drivers[driver]?.secrets) || [];
}

function view(ctx: TenantContext, row: ProviderSettingsRow, instanceNames: Map<string, string>): ProviderSettingsView {
  return {
    channel: row.channel,
    instanceName: row.instance_id === TENANT_WIDE ? null : (instanceNames.get(row.instance_id) ?? null),
    driver: row.driver,
    options: row.options,
    // The names of the credentials stored (never their values).
    secretsSet: row.sealed === null ? [] : Object.keys(ctx.services.sealer.open(row.sealed) ?? {}),
    updatedAt: row.updated_at,
    updatedByName: row.updated_by_name,
  };
}

async function instanceNamesOf(ctx: TenantContext): Promise<Map<string, string>> {
  return new Map((await listInstances(ctx.db, ctx.tenant.id)).map((instance) => [instance.id, instance.name]));
}

/** GET: every outside service, its drivers and their options, and the configurations stored. */
export async function listProviders(ctx: TenantContext) {
  const rows = await ctx.db
    .selectFrom('provider_settings')
    .selectAll()
    .where('tenant_id', '=', ctx.tenant.id)
    .orderBy('channel')
    .orderBy('instance_id')
    .execute();
  const names = await instanceNamesOf(ctx);
  return ctx.services.slots.map((slot) => ({
    channel: slot.channel,
    serverDriver: settingsOf(ctx.services.config, slot.settings).driver,
    drivers: Object.entries(slot.drivers).map(([name, driver]) => ({
      name,
      description: driver.description,
      options: driver.options as unknown as Record<string, unknown>,
      secrets: [...(driver.secrets ?? [])],
    })),
    configurations: rows.filter((row) => row.channel === slot.channel).map((row) => view(ctx, row, names)),
  }));
}

async function instanceIdOf(ctx: TenantContext, instanceName: string | null): Promise<string> {
  if (instanceName === null) return TENANT_WIDE;
  const instance = await ctx.services.instance(ctx.tenant.id, instanceName);
  if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName });
  return instance.id;
}

/** The options checked against the driver's schema (defaults filled, unknown keys dropped), every problem named. */
function checkedOptions(schema: TObject, given: Record<string, unknown>): Record<string, unknown> {
  const known = Object.fromEntries(Object.entries(given).filter(([key]) => Object.hasOwn(schema.properties, key)));
  const options = Value.Default(schema, structuredClone(known)) as Record<string, unknown>;
  const problems = [...Value.Errors(schema, options)].map((error) => ({
    path: `body.options${error.instancePath.replaceAll('/', '.')}`,
    message: error.message,
  }));
  if (problems.length > 0) throw validationError(problems);
  return options;
}

/** PUT: the tenant's (instanceName null) or one instance's configuration of a channel, whole. */
export async function putProviderSettings(
  ctx: TenantContext,
  channel: string,
  instanceName: string | null,
  body: SettingsInputBody,
): Promise<ProviderSettingsView> {
  const slot = slotOf(ctx, channel);
  const driver = Object.hasOwn(slot.drivers, body.driver) ? slot.drivers[body.driver] : undefined;
  if (!driver) throw badField('body.driver', `one of ${Object.keys(slot.drivers).join(', ')}`);
  const instanceId = await instanceIdOf(ctx, instanceName);
  const secrets = secretsOf(slot, body.driver);
  const row = await write(ctx, async (w) => {
    const existing = await w.db
      .selectFrom('provider_settings')
      .selectAll()
      .where('tenant_id', '=', ctx.tenant.id)
      .where('channel', '=', channel)
      .where('instance_id', '=', instanceId)
      .forUpdate()
      .executeTakeFirst();
    const kept = existing?.driver === body.driver && existing.sealed ? (ctx.services.sealer.open(existing.sealed) ?? {}) : {};
    const given = body.options ?? {};
    const reserved = (driver.serverOnly ?? []).filter((name) => Object.hasOwn(given, name));
    if (reserved.length > 0) {
      throw validationError(
        reserved.map((name) => ({ path: `body.options.${name}`, message: "only the server's configuration sets it" })),
      );
    }
    const options = checkedOptions(driver.options, { ...kept, ...given });
    const plain = Object.fromEntries(Object.entries(options).filter(([name]) => !secrets.includes(name)));
    const sealed = Object.fromEntries(Object.entries(options).filter(([name]) => secrets.includes(name)));
    const values = {
      driver: body.driver,
      options: JSON.stringify(plain),
      sealed: Object.keys(sealed).length > 0 ? ctx.services.sealer.seal(sealed) : null,
      ...w.updated(),
    };
    const saved = await w.db
      .insertInto('provider_settings')
      .values({ tenant_id: ctx.tenant.id, instance_id: instanceId, channel, ...values })
      .onConflict((oc) => oc.columns(['tenant_id', 'channel', 'instance_id']).doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'PROVIDER_SETTINGS_UPDATED',
      entityType: 'PROVIDER',
      entityId: null,
      about: { channel, driver: body.driver, ...(instanceName ? { instanceName } : {}) },
      changedFields: ['driver', ...Object.keys(body.options ?? {}).filter((name) => Object.hasOwn(options, name))],
    });
    w.afterCommit(() => ctx.services.forgetCaches());
    return saved;
  });
  return view(ctx, row, new Map([[instanceId, instanceName ?? '']]));
}

/** DELETE (200, empty): the configuration at that level goes; the next level applies again. */
export async function deleteProviderSettings(ctx: TenantContext, channel: string, instanceName: string | null): Promise<void> {
  slotOf(ctx, channel);
  const instanceId = await instanceIdOf(ctx, instanceName);
  await write(ctx, async (w) => {
    const removed = await w.db
      .deleteFrom('provider_settings')
      .where('tenant_id', '=', ctx.tenant.id)
      .where('channel', '=', channel)
      .where('instance_id', '=', instanceId)
      .returning('driver')
      .executeTakeFirst();
    if (!removed) throw new ApiError('PROVIDER_SETTINGS_NOT_FOUND', { channel, instanceName });
    w.changed({
      action: 'PROVIDER_SETTINGS_DELETED',
      entityType: 'PROVIDER',
      entityId: null,
      about: { channel, driver: removed.driver, ...(instanceName ? { instanceName } : {}) },
    });
    w.afterCommit(() => ctx.services.forgetCaches());
  });
}
