import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { CsvList, DateTime, E164, Email, JsonObject, Nullable, Uuid } from '../../wire/schemas.ts';

export const userStates = ['ACTIVE', 'INACTIVE', 'PROVISIONED'] as const;

/** 001: the locale's full value set is not given; en-US is the default. Any BCP 47 language-region tag. */
const Locale = Type.String({ pattern: '^[a-z]{2,3}(-[A-Z]{2})?$', description: 'e.g. en-US (the default)' });
const Code = Type.String({ pattern: '^[A-Z][A-Z0-9_]*$', maxLength: 50 });
const OptionalText = (maxLength = 255) => Type.Optional(Nullable(Type.String({ maxLength })));
/** Bounds on what one user can be given: far above real use, low enough to keep a write small. */
const MAX_GRANTS = 1000;
const MAX_TERRITORIES = 1000;
const InstanceNames = Type.Array(Type.String({ maxLength: 100 }), { maxItems: MAX_TERRITORIES });

export const TerritoryInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Region name' }),
  territories: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: MAX_TERRITORIES }),
  instanceName: Type.String({ minLength: 1, maxLength: 100 }),
});

export const GrantInput = Type.Object({
  permissionName: Type.String({ minLength: 1, description: 'Role (or policy) name in that instance' }),
  instanceName: Type.String({ minLength: 1 }),
  primaryRole: Type.Optional(Nullable(Type.Boolean())),
  effectiveDate: Type.Optional(Nullable(DateTime)),
  expirationDate: Type.Optional(Nullable(DateTime)),
});
export type GrantInputBody = Static<typeof GrantInput>;

/** Writable user fields; the list carries no defaults so that PATCH leaves absent ones alone. */
const userProperties = {
  username: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\s/]+$' }),
  email: Email,
  phone: Type.Optional(Nullable(E164)),
  timezone: Type.Optional(Nullable(Type.String({ format: 'timezone' }))),
  locale: Type.Optional(Nullable(Locale)),
  firstName: OptionalText(),
  lastName: OptionalText(),
  credentials: OptionalText(),
  terminologyName: OptionalText(),
  enabled: Type.Optional(Type.Boolean()),
  mfaEnabled: Type.Optional(Type.Boolean()),
  statusType: OptionalText(),
  ssoAccess: Type.Optional(Type.Boolean()),
  passwordAccess: Type.Optional(Type.Boolean()),
  userState: Type.Optional(Type.Enum(userStates)),
  customUserAttributes: Type.Optional(Nullable(JsonObject)),
  allowedToReceiveCalls: Type.Optional(Type.Boolean()),
  territories: Type.Optional(Nullable(Type.Array(TerritoryInput, { maxItems: MAX_TERRITORIES }))),
  fullTerritoriesAccessInstances: Type.Optional(Nullable(InstanceNames)),
  roles: Type.Optional(Nullable(Type.Array(GrantInput, { maxItems: MAX_GRANTS }))),
  policies: Type.Optional(Nullable(Type.Array(GrantInput, { maxItems: MAX_GRANTS }))),
  seats: Type.Optional(Nullable(Type.Array(Code))),
  seatAssignAllowed: Type.Optional(Type.Boolean()),
  applicationAccess: Type.Optional(
    Nullable(
      Type.Object({
        adminAccessEnabled: Type.Optional(Type.Boolean()),
        auditSecurityAccessEnabled: Type.Optional(Type.Boolean()),
      }),
    ),
  ),
};

/** POST and PUT: username and email are required; locale defaults to en-US (DECISIONS §7). */
export const UserCreate = Type.Object(userProperties);
export const UserPatch = Type.Object({
  ...userProperties,
  username: Type.Optional(userProperties.username),
  email: Type.Optional(userProperties.email),
});
export type UserInput = Static<typeof UserPatch>;

const TerritoryEntry = Type.Object({
  name: Type.String(),
  territories: Type.Array(Type.String()),
  instanceName: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
});

const Grant = Type.Object({
  permissionName: Type.String(),
  instanceName: Type.String(),
  type: Type.String({ description: 'SECURITY_ROLE or SECURITY_POLICY' }),
  primaryRole: Type.Boolean(),
  effectiveDate: Nullable(DateTime),
  expirationDate: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});

/** prod: unset optional keys are omitted, while statusType is always present (null when unset). */
export const User = Type.Object({
  id: Uuid,
  username: Type.String(),
  email: Type.String(),
  phone: Type.Optional(Type.String()),
  timezone: Type.Optional(Type.String()),
  locale: Type.Optional(Type.String()),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  credentials: Type.Optional(Type.String()),
  terminologyName: Type.Optional(Type.String()),
  tenantName: Type.String(),
  enabled: Type.Boolean(),
  mfaEnabled: Type.Boolean(),
  statusType: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdByName: Type.Optional(Type.String()),
  updatedByName: Type.Optional(Type.String()),
  _root_user: Type.Boolean(),
  ssoAccess: Type.Boolean(),
  passwordAccess: Type.Boolean(),
  userState: Type.String(),
  customUserAttributes: JsonObject,
  allowedToReceiveCalls: Type.Boolean(),
  territories: Type.Array(TerritoryEntry),
  fullTerritoriesAccessInstances: Type.Optional(Type.Array(Type.String())),
  roles: Type.Array(Grant),
  policies: Type.Array(Grant),
  seats: Type.Array(Type.String()),
  seatAssignAllowed: Type.Boolean(),
  applicationAccess: Type.Object({
    id: Uuid,
    createdAt: DateTime,
    updatedAt: DateTime,
    userId: Uuid,
    adminAccessEnabled: Type.Boolean(),
    auditSecurityAccessEnabled: Type.Boolean(),
    instanceAccesses: Type.Array(
      Type.Object({
        instanceId: Uuid,
        instanceName: Type.String(),
        instanceDescription: Nullable(Type.String()),
        userEmailWithInstanceDomain: Type.String(),
        workshopAccessEnabled: Type.Boolean(),
        auditDataAccessEnabled: Type.Boolean(),
        enabledTakenPersonally: Type.Boolean(),
      }),
    ),
  }),
  deleted: Type.Optional(Type.Boolean({ description: 'Present (true) on deleted users listed with includeDeleted' })),
});

export const UserListQuery = Type.Object({
  ...PagingQuery,
  email: Type.Optional(Type.String({ description: 'Exact email, any case' })),
  ids: Type.Optional(CsvList(Uuid)),
  firstName: Type.Optional(Type.String({ description: 'Exact first name, any case' })),
  lastName: Type.Optional(Type.String({ description: 'Exact last name, any case' })),
  region: Type.Optional(Type.String()),
  territories: Type.Optional(CsvList(Type.String(), { description: 'Only with region: users covering any of these' })),
  roleName: Type.Optional(Type.String()),
  includeDeleted: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of username, email or name' })),
  userState: Type.Optional(Type.Enum(userStates)),
  seatAssigned: Type.Optional(Type.Boolean({ description: 'Users with (true) or without (false) a seat' })),
});
export type UserFilter = Static<typeof UserListQuery>;

export const UserNameParams = Type.Object({ tenantName: Type.String(), userName: Type.String({ minLength: 1, maxLength: 320 }) });
export const UserLookupQuery = Type.Object({
  type: Type.Optional(
    Type.Union([Type.Literal('ID'), Type.Literal('EMAIL')], {
      description: 'The segment is a user id or an email; default: username',
    }),
  ),
});

export const UserTerritoriesRecord = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
  userId: Uuid,
  territories: Type.Array(TerritoryEntry),
  fullTerritoriesAccessInstances: Type.Array(Type.String()),
});

export const UserTerritoriesInput = Type.Object({
  userId: Uuid,
  territories: Type.Array(TerritoryInput, { maxItems: MAX_TERRITORIES }),
  fullTerritoriesAccessInstances: Type.Optional(Nullable(InstanceNames)),
});

export const PasswordInput = Type.Object({
  password: Type.String({ minLength: 12, maxLength: 200, description: 'At least 12 characters' }),
});
