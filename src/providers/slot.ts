import { Type } from 'typebox';
import { invalid, type SettingsSection, settingsSection } from '../config.ts';

/**
 * A slot for an outside service (email, SMS, voice, fax, payments), declared by the area that
 * uses it (`Area.providers`), under `src/providers/<channel>/`: the channel's interface, its
 * drivers, and its settings. The `sandbox` driver is the default everywhere: it records what it
 * is asked to do, simulates delivery, and lets tests and demos inject inbound traffic, so Cairn
 * runs with no vendor account. Real drivers speak the vendor's SDK or protocol (nodemailer,
 * twilio, stripe) and are chosen by `CAIRN_<CHANNEL>_DRIVER`. Tests replace a channel's driver
 * through `buildApp({ providers })`, as they replace the blob store and the clock.
 */
export interface ProviderSlot<T = unknown, S = unknown, Env = unknown> extends Channel {
  /** The channel's settings: which driver, and each driver's own variables. */
  settings: SettingsSection<S & { driver: string }>;
  /** Makes the chosen driver once per process, from the settings and what the app has (its services). */
  drivers: { sandbox: (settings: S, env: Env) => T } & Record<string, (settings: S, env: Env) => T>;
}

/** What the platform knows of any slot: its name and settings (an area lists its slots on its `Area`). */
export interface Channel {
  /** The channel's name (`email`); its variables are `CAIRN_<CHANNEL>_...`. */
  channel: string;
  settings: SettingsSection<{ driver: string }>;
}

/**
 * Declares a channel: its settings are its drivers' variables plus `CAIRN_<CHANNEL>_DRIVER`
 * (sandbox by default), checked against the drivers it has.
 */
export function providerSlot<T, S extends object, Env>(
  channel: string,
  drivers: ProviderSlot<T, S, Env>['drivers'],
  settings: SettingsSection<S>,
): ProviderSlot<T, S, Env> {
  const variable = `CAIRN_${channel.toUpperCase()}_DRIVER`;
  const names = Object.keys(drivers);
  const schema = Type.Object({
    [variable]: Type.String({
      default: 'sandbox',
      description: `The ${channel} driver: ${names.join(', ')} (sandbox records and simulates, reaching no vendor).`,
    }),
    ...settings.schema.properties,
  });
  return {
    channel,
    drivers,
    settings: settingsSection(settings.owner, schema, (values, platform) => {
      const driver = String((values as Record<string, unknown>)[variable]);
      if (!names.includes(driver)) invalid(`${variable}: one of ${names.join(', ')}`);
      return { ...settings.read(values, platform), driver };
    }),
  };
}

/** The drivers a process uses, one per channel, made on first use (or given by a test). */
export class Providers<Env> {
  private readonly made = new Map<Channel, unknown>();

  constructor(
    private readonly env: Env,
    private readonly settingsOf: <S>(section: SettingsSection<S>) => S,
    replaced: ReadonlyMap<Channel, unknown> = new Map(),
  ) {
    for (const [slot, driver] of replaced) this.made.set(slot, driver);
  }

  /** The channel's driver: the one configured, or the one a test put in its place. */
  of<T, S>(slot: ProviderSlot<T, S, Env>): T {
    const known = this.made.get(slot);
    if (known !== undefined) return known as T;
    const settings = this.settingsOf(slot.settings);
    const driver = slot.drivers[settings.driver] ?? slot.drivers.sandbox;
    const made = driver(settings, this.env);
    this.made.set(slot, made);
    return made;
  }
}
