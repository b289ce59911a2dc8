import { type Static, type TSchema, Type } from 'typebox';
import { supportedTimezones } from '../../formation/patient-fields.ts';
import { PagingQuery } from '../../http/pagination.ts';
import { CsvList, DateTime, E164, Email, Nullable, Uuid } from '../../wire/schemas.ts';
import { PatientProgram } from '../programs/index.ts';

/** Optional on write; `null` clears it and, as production sends, `""` counts as null. */
function Clearable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Literal(''), Type.Null()]));
}
function OptionalText(maxLength = 255) {
  return Type.Optional(Nullable(Type.String({ maxLength })));
}

export const genders = ['MALE', 'FEMALE', 'OTHER', 'UNKNOWN'] as const;
/** 001: A annulled, D divorced, I interlocutory, L legally separated, M married, P polygamous, S never married, T domestic partner, U unmarried, W widowed, UKN unknown. */
export const maritalStatuses = ['A', 'D', 'I', 'L', 'M', 'P', 'S', 'T', 'U', 'W', 'UKN'] as const;
export const phoneCapabilities = ['VOICE_CALL', 'SMS'] as const;
export const weekdays = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export const priorities = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;

/** The full value sets of languages and patient types are not given (001): any upper-case code. */
const Code = Type.String({ pattern: '^[A-Z][A-Z0-9_]*$', maxLength: 50, description: 'Upper-case code, e.g. ENGLISH' });

export const Timezone = Type.Enum(supportedTimezones, { description: 'One of the timezones 001 supports at patient creation' });

export const CareTeamMemberInput = Type.Object({ id: Uuid, pointOfContact: Type.Optional(Nullable(Type.Boolean())) });

export const PatientTerritoryInput = Type.Object({
  name: Type.String({ minLength: 1, description: 'Region name' }),
  territories: Type.Array(Type.String({ minLength: 1 })),
});

export const Cadence = Type.Object({
  schedules: Type.Array(
    Type.Object({
      hour: Type.Integer({ minimum: 0, maximum: 23 }),
      minute: Type.Integer({ minimum: 0, maximum: 59 }),
      days: Type.Array(Type.Enum(weekdays)),
      weekNumbers: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 6 }))),
    }),
  ),
  priority: Type.Enum(priorities),
});

const BirthDate = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$',
  description: 'A date (YYYY-MM-DD) or a date-time at midnight UTC',
});

/** Every field a client may write; firstName and lastName are required only on create. */
const writableProperties = {
  externalGuid: Type.Optional(Uuid),
  externalId: OptionalText(),
  mrn: OptionalText(),
  nric: OptionalText(),
  accessCode: OptionalText(),
  firstName: Type.String({ minLength: 1, maxLength: 255 }),
  lastName: Type.String({ minLength: 1, maxLength: 255 }),
  middleName: OptionalText(),
  birthDate: Clearable(BirthDate),
  gender: Clearable(Type.Enum(genders)),
  maritalStatus: Clearable(Type.Enum(maritalStatuses)),
  primaryLanguage: Clearable(Code),
  secondaryLanguage: Clearable(Code),
  email: Clearable(Email),
  secondaryEmail: Clearable(Email),
  phone: Clearable(E164),
  secondaryPhone: Clearable(E164),
  phoneLabel: OptionalText(),
  secondaryPhoneLabel: OptionalText(),
  primaryPhoneCapabilities: Type.Optional(Nullable(Type.Array(Type.Enum(phoneCapabilities)))),
  secondaryPhoneCapabilities: Type.Optional(Nullable(Type.Array(Type.Enum(phoneCapabilities)))),
  preferableInstancePhoneId: Clearable(Uuid),
  country: OptionalText(),
  state: OptionalText(),
  city: OptionalText(),
  zip: OptionalText(32),
  addressLine1: OptionalText(),
  addressLine2: OptionalText(),
  timezone: Clearable(Timezone),
  patientType: Clearable(Code),
  notes: OptionalText(10_000),
  careTeam: Type.Optional(Nullable(Type.Array(CareTeamMemberInput, { description: 'On write: `{id, pointOfContact}`' }))),
  careTeamMembers: Type.Optional(Nullable(Type.Array(CareTeamMemberInput, { description: 'Deprecated alias of careTeam' }))),
  cadence: Type.Optional(Nullable(Type.Array(Cadence))),
  patientRegion: OptionalText(),
  patientTerritory: OptionalText(),
  patientTerritories: Type.Optional(Nullable(Type.Array(PatientTerritoryInput))),
};

const extraKeys = {
  additionalProperties: true,
  description: "Extra top-level keys are the tenant's custom attributes, checked against the formation.",
};

export const PatientCreate = Type.Object(writableProperties, extraKeys);
export const PatientPatch = Type.Object(
  {
    ...writableProperties,
    firstName: Type.Optional(writableProperties.firstName),
    lastName: Type.Optional(writableProperties.lastName),
  },
  extraKeys,
);
/** A create or PATCH body; extra keys are custom attributes. */
export type PatientInput = Static<typeof PatientPatch> & Record<string, unknown>;

export const PatientBulkPatch = Type.Object({
  ids: Type.Array(Uuid, { minItems: 1, maxItems: 10_000 }),
  timezone: Clearable(Timezone),
  patientTerritories: Type.Optional(Nullable(Type.Array(PatientTerritoryInput))),
  patientRegion: OptionalText(),
  patientTerritory: OptionalText(),
  careTeam: Type.Optional(Nullable(Type.Array(CareTeamMemberInput, { description: 'Replaces the whole care team' }))),
  cadence: Type.Optional(Nullable(Type.Array(Cadence))),
  careTeamAdditions: Type.Optional(Type.Array(Uuid, { description: 'Users added; existing members kept' })),
  careTeamReplacements: Type.Optional(Type.Array(Type.Object({ from: Uuid, to: Uuid }))),
  careTeamRemovals: Type.Optional(Type.Array(Uuid)),
});
export type PatientBulkPatchBody = Static<typeof PatientBulkPatch>;

export const CareUserSummary = Type.Object({
  id: Uuid,
  username: Type.String(),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  email: Type.String(),
  roles: Type.Array(
    Type.Object({ name: Type.String(), primaryRole: Type.Boolean(), description: Nullable(Type.String()), instanceId: Uuid }),
  ),
  pointOfContact: Type.Boolean(),
  enabled: Type.Boolean(),
});
export type CareUser = Static<typeof CareUserSummary>;

export const Patient = Type.Object(
  {
    id: Uuid,
    externalGuid: Uuid,
    externalId: Nullable(Type.String()),
    mrn: Nullable(Type.String()),
    nric: Nullable(Type.String()),
    accessCode: Nullable(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
    createdBy: Nullable(Type.String()),
    updatedBy: Nullable(Type.String()),
    createdByName: Nullable(Type.String()),
    updatedByName: Nullable(Type.String()),
    firstName: Type.String(),
    lastName: Type.String(),
    middleName: Nullable(Type.String()),
    birthDate: Nullable(DateTime),
    gender: Nullable(Type.String()),
    maritalStatus: Nullable(Type.String()),
    primaryLanguage: Nullable(Type.String()),
    secondaryLanguage: Nullable(Type.String()),
    email: Nullable(Type.String()),
    secondaryEmail: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    secondaryPhone: Nullable(Type.String()),
    phoneLabel: Nullable(Type.String()),
    secondaryPhoneLabel: Nullable(Type.String()),
    primaryPhoneCapabilities: Type.Array(Type.String()),
    secondaryPhoneCapabilities: Type.Array(Type.String()),
    preferableInstancePhoneId: Nullable(Type.String()),
    country: Nullable(Type.String()),
    state: Nullable(Type.String()),
    city: Nullable(Type.String()),
    zip: Nullable(Type.String()),
    addressLine1: Nullable(Type.String()),
    addressLine2: Nullable(Type.String()),
    timezone: Nullable(Type.String()),
    patientType: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    patientTerritories: Type.Array(Type.Object({ name: Type.String(), territories: Type.Array(Type.String()) })),
    careTeamMembers: Type.Array(Type.Object({ id: Uuid, pointOfContact: Type.Boolean() }), {
      description: 'Deprecated: use careTeam',
    }),
    careTeam: Type.Array(CareUserSummary),
    territorialTeam: Type.Array(CareUserSummary),
    patientPrograms: Type.Array(PatientProgram),
    cadence: Type.Array(Cadence),
    patientRegion: Nullable(Type.String()),
    patientRegionTitle: Nullable(Type.String()),
    patientTerritory: Nullable(Type.String()),
    pointOfContact: Nullable(CareUserSummary),
  },
  { additionalProperties: true },
);

const filterProperties = {
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'Substring of name, phones, emails, MRN, NRIC or access code' }),
  ),
  query: Type.Optional(Type.String({ maxLength: 200, description: 'Alias of search' })),
  email: Type.Optional(Type.String({ maxLength: 320, description: 'Primary or secondary email, any case' })),
  phone: Type.Optional(Type.String({ maxLength: 32, description: 'Primary or secondary phone (E.164)' })),
  mrn: Type.Optional(Type.String({ maxLength: 255 })),
  externalId: Type.Optional(Type.String({ maxLength: 255 })),
  timezone: Type.Optional(Type.String({ maxLength: 64 })),
  territories: Type.Optional(CsvList(Type.String(), { description: 'Patients in any of these territories' })),
  region: Type.Optional(Type.String({ maxLength: 100 })),
  careTeamMemberId: Type.Optional(Uuid),
  programName: Type.Optional(Type.String({ maxLength: 100, description: 'Patients enrolled in this program' })),
  createdAfter: Type.Optional(DateTime),
  createdBefore: Type.Optional(DateTime),
  updatedAfter: Type.Optional(DateTime),
  updatedBefore: Type.Optional(DateTime),
  withoutCareTeam: Type.Optional(Type.Boolean()),
  assignedToMe: Type.Optional(Type.Boolean({ description: "Only the calling user's patients (none for API clients)" })),
};

export const PatientListQuery = Type.Object({ ...filterProperties, ...PagingQuery });
export type PatientFilter = Partial<Static<typeof PatientListQuery>> & { ids?: string[] };

export const PatientFilterBody = Type.Object({
  ...filterProperties,
  territories: Type.Optional(Type.Array(Type.String())),
  ids: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })),
  page: Type.Optional(PagingQuery.page),
  size: Type.Optional(PagingQuery.size),
  sort: PagingQuery.sort,
});

export const PatientIdParams = Type.Object({
  tenantName: Type.String(),
  instanceName: Type.String(),
  patientId: Type.String({ minLength: 1, maxLength: 255 }),
});

export const PatientLookupQuery = Type.Object({
  type: Type.Optional(
    Type.Union([Type.Literal('EID'), Type.Literal('EGUID'), Type.Literal('MRN')], {
      description: 'The path segment is an externalId (EID), externalGuid (EGUID) or MRN; default: the patient id',
    }),
  ),
});
