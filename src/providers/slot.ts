import { LRUCache } from 'lru-cache';
import { type TObject, Type } from 'typebox';
import { Value } from 'typebox/value';
import { invalid, type SettingsSection, settingsSection } from '../config.ts';

/**
 * A slot for an outside service (email, SMS, voice, fax, payments), declared by the area that
 * uses it (`Area.providers`), under `src/providers/<channel>/`: the channel's interface, its
 * drivers, and its settings. The `sandbox` driver is the default everywhere: it records what it
 * is asked to do, simulates delivery, and lets tests and demos inject inbound traffic, so Cairn
 * runs with no vendor account. Real drivers speak the vendor's SDK or protocol (nodemailer,
 * twilio, stripe), which each loads with `import()` when it is made: a server on the sandbox
 * drivers never loads a vendor's SDK (together they held 16 MB of a worker's live heap, 20 MB of its
 * memory, and a thousand of its modules).
 *
 * Which driver serves an instance, with which options: the instance's own configuration, else its
 * tenant's (both set by a tenant administrator, `/{tenant}/admin/providers`), else the server's
 * (`CAIRN_<CHANNEL>_DRIVER` and the drivers' variables). Each level is whole on its own: a tenant's
 * SMTP host never borrows the server's password. Tests replace a channel's driver through
 * `buildApp({ providers })`, as they replace the blob store and the clock.
 */

/** The instance a provider serves: every channel is configured per tenant or per instance. */
export interface ProviderScope {
  tenantId: string;
  instanceId: string;
}

/** Where an instance's configuration of a channel comes from. */
export type ConfigLevel = 'server' | 'tenant' | 'instance';

export interface ProviderConfig {
  driver: string;
  options: Record<string, unknown>;
}

/** A configuration a tenant administrator stored, its credentials opened. */
export interface StoredConfig extends ProviderConfig {
  level: 'tenant' | 'instance';
  /** Changes whenever the configuration does: a driver made from an older one is not reused. */
  version: string;
}

export interface Driver<T, Env> {
  description: string;
  /** What a tenant administrator sets for this driver (checked when set); the server's variables fill the same. */
  options: TObject;
  /** Option names that are credentials: sealed at rest, never answered back. */
  secrets?: readonly string[];
  /** Option names only the server's configuration sets (a vendor API's address, for a test double): a tenant's may not. */
  serverOnly?: readonly string[];
  /**
   * Makes the driver for a configuration. `level` says whose it is: a tenant's may only reach
   * public addresses (unless the operator allows private ones); the server's own is trusted.
   * A vendor's driver is async: it imports the vendor's SDK only now, when it is first needed.
   */
  make(options: Record<string, unknown>, env: Env, level: ConfigLevel): T | Promise<T>;
}

/** What the platform knows of any slot: its name, settings and drivers (an area lists its slots on its `Area`). */
export interface Channel {
  /** The channel's name (`email`); its variables are `CAIRN_<CHANNEL>_...`. */
  channel: string;
  settings: SettingsSection<ProviderConfig>;
  drivers: Record<string, Pick<Driver<unknown, never>, 'description' | 'options' | 'secrets' | 'serverOnly'>>;
}

export interface ProviderSlot<T, Env> extends Channel {
  drivers: { sandbox: Driver<T, Env> } & Record<string, Driver<T, Env>>;
}

/**
 * Declares a channel: its settings are `CAIRN_<CHANNEL>_DRIVER` (sandbox by default) and the
 * variables `env` reads into each driver's options; the server's chosen driver's options are
 * checked against that driver's schema at start-up, so a missing SMTP host stops the server.
 */
export function providerSlot<T, Env>(
  channel: string,
  drivers: ProviderSlot<T, Env>['drivers'],
  env: SettingsSection<Record<string, Record<string, unknown>>>,
): ProviderSlot<T, Env> {
  const variable = `CAIRN_${channel.toUpperCase()}_DRIVER`;
  const names = Object.keys(drivers);
  const schema = Type.Object({
    [variable]: Type.String({
      default: 'sandbox',
      description: `The ${channel} driver: ${names.join(', ')} (sandbox records and simulates, reaching no vendor).`,
    }),
    ...env.schema.properties,
  });
  return {
    channel,
    drivers,
    settings: settingsSection(env.owner, schema, (values, platform) => {
      const driver = String((values as Record<string, unknown>)[variable]);
      const chosen = Object.hasOwn(drivers, driver) ? drivers[driver] : undefined;
      if (!chosen) invalid(`${variable}: one of ${names.join(', ')}`);
      const options = Value.Default(chosen.options, { ...(env.read(values, platform)[driver] ?? {}) }) as Record<string, unknown>;
      const [problem] = [...Value.Errors(chosen.options, options)];
      if (problem) invalid(`${variable}=${driver}: ${problem.instancePath.slice(1) || 'options'} ${problem.message}`);
      return { driver, options };
    }),
  };
}

/** The driver serving an instance, and where its configuration came from. */
export interface Chosen<T> {
  driver: string;
  level: ConfigLevel;
  use: T;
}

/** What a driver may hold that needs closing (a pool of SMTP connections). */
interface Closable {
  close?(): unknown;
}

/** A driver made, or being made (a vendor's SDK still loading): concurrent first uses share one. */
interface Made {
  use: unknown;
}

/**
 * The drivers a process uses. A driver is made once per configuration and kept while it is used
 * (so an SMTP pool is shared by every send of a tenant), and closed when its configuration changes
 * or it is idle for an hour.
 */
export class Providers<Env> {
  private readonly made = new LRUCache<string, Made>({
    max: 1_000,
    ttl: 60 * 60_000,
    updateAgeOnGet: true,
    dispose: (entry) =>
      void Promise.resolve(entry.use)
        .then((use) => (use as Closable).close?.())
        .catch(() => {}),
  });
  /** The key of the driver each configuration's owner has now: a new version retires the one before. */
  private readonly current = new Map<string, string>();

  constructor(
    private readonly env: Env,
    private readonly settingsOf: <S>(section: SettingsSection<S>) => S,
    /** The tenant's or instance's stored configuration of a channel, when there is one (cached by the caller). */
    private readonly stored: (channel: string, scope: ProviderScope) => Promise<StoredConfig | undefined>,
    private readonly replaced: ReadonlyMap<Channel, unknown> = new Map(),
  ) {}

  /** The channel's driver for an instance: the one configured for it, or the one a test put in its place. */
  async for<T>(slot: ProviderSlot<T, Env>, scope: ProviderScope): Promise<Chosen<T>> {
    const replaced = this.replaced.get(slot);
    if (replaced !== undefined) return { driver: 'replaced', level: 'server', use: replaced as T };
    const stored = await this.stored(slot.channel, scope);
    const config = stored ?? this.settingsOf(slot.settings);
    const level: ConfigLevel = stored?.level ?? 'server';
    const owner = level === 'server' ? '' : level === 'tenant' ? scope.tenantId : `${scope.tenantId}/${scope.instanceId}`;
    const ownerKey = `${slot.channel}|${level}|${owner}`;
    const key = `${ownerKey}|${stored?.version ?? ''}`;
    // A stored driver this build no longer has falls back to the sandbox rather than to a vendor.
    const name = Object.hasOwn(slot.drivers, config.driver) ? config.driver : 'sandbox';
    let entry = this.made.get(key);
    if (!entry) {
      const made: Made = { use: (slot.drivers[name] ?? slot.drivers.sandbox).make(config.options, this.env, level) };
      entry = made;
      if (made.use instanceof Promise) {
        // Kept as its value once made; a driver that could not be made (its SDK failed to load) is
        // forgotten, so the next use tries again.
        made.use = made.use.then(
          (use: unknown) => {
            made.use = use;
            return use;
          },
          (error: unknown) => {
            if (this.made.peek(key) === made) this.made.delete(key);
            throw error;
          },
        );
      }
      this.made.set(key, made);
      const previous = this.current.get(ownerKey);
      if (previous !== undefined && previous !== key) this.made.delete(previous);
      this.current.set(ownerKey, key);
    }
    const use = entry.use instanceof Promise ? await entry.use : entry.use;
    return { driver: name, level, use: use as T };
  }

  /** The name of the driver serving a channel for an instance, without making it. */
  async driverName(slot: Channel, scope: ProviderScope): Promise<string> {
    if (this.replaced.has(slot)) return 'replaced';
    const stored = await this.stored(slot.channel, scope);
    const name = (stored ?? this.settingsOf(slot.settings)).driver;
    return Object.hasOwn(slot.drivers, name) ? name : 'sandbox';
  }

  /** Closes every driver made (the app's close). */
  close(): void {
    this.made.clear();
    this.current.clear();
  }
}
