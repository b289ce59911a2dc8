import { type Static, Type } from 'typebox';
import { DateTime, JsonObject, Nullable, TenantParams } from '../../wire/schemas.ts';

/** The wire contract of outside services' configuration (`/{tenantName}/admin/providers`). */

export const ChannelParams = Type.Object({ ...TenantParams.properties, channel: Type.String({ maxLength: 40 }) });
export const InstanceChannelParams = Type.Object({ ...ChannelParams.properties, instanceName: Type.String({ maxLength: 63 }) });

export const SettingsInput = Type.Object({
  driver: Type.String({ minLength: 1, maxLength: 40, description: "One of the channel's drivers (GET lists them)" }),
  options: Type.Optional(JsonObject),
});
export type SettingsInputBody = Static<typeof SettingsInput>;

/** A stored configuration: its options without credentials, and the names of the credentials set. */
export const ProviderSettings = Type.Object({
  channel: Type.String(),
  /** Null: the tenant's own, for every instance without one. */
  instanceName: Nullable(Type.String()),
  driver: Type.String(),
  options: JsonObject,
  secretsSet: Type.Array(Type.String()),
  updatedAt: DateTime,
  updatedByName: Nullable(Type.String()),
});
export type ProviderSettingsView = Static<typeof ProviderSettings>;

export const ProviderChannel = Type.Object({
  channel: Type.String(),
  /** The driver the server's own configuration chooses, for instances the tenant configured nothing for. */
  serverDriver: Type.String(),
  drivers: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Type.String(),
      /** The options' JSON Schema. */
      options: JsonObject,
      secrets: Type.Array(Type.String()),
    }),
  ),
  configurations: Type.Array(ProviderSettings),
});
