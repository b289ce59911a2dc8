/**
 * The patient's built-in fields, as the formation sees them: a `patientAttributes` entry with one
 * of these names is a designer rule on it (DECISIONS §6), any other name a custom attribute. The
 * patients area maps each scalar to its column (`modules/patients/fields.ts`).
 */

export const scalarPatientFields = [
  'id',
  'externalGuid',
  'externalId',
  'mrn',
  'nric',
  'accessCode',
  'firstName',
  'lastName',
  'middleName',
  'birthDate',
  'gender',
  'maritalStatus',
  'primaryLanguage',
  'secondaryLanguage',
  'email',
  'secondaryEmail',
  'phone',
  'secondaryPhone',
  'phoneLabel',
  'secondaryPhoneLabel',
  'preferableInstancePhoneId',
  'country',
  'state',
  'city',
  'zip',
  'addressLine1',
  'addressLine2',
  'timezone',
  'patientType',
  'notes',
  'patientRegion',
  'patientTerritory',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'createdByName',
  'updatedByName',
] as const;

export type ScalarPatientField = (typeof scalarPatientFields)[number];

/** Fields a patient object has besides the scalars; read-only ones are ignored on write (DECISIONS §10). */
export const structuredFields = [
  'primaryPhoneCapabilities',
  'secondaryPhoneCapabilities',
  'cadence',
  'careTeam',
  'careTeamMembers',
  'patientTerritories',
] as const;
export const readOnlyFields = ['territorialTeam', 'patientPrograms', 'pointOfContact', 'patientRegionTitle'] as const;

/** Names a formation may put a designer "required" rule on. */
export const builtInPatientFields = new Set<string>([...scalarPatientFields, ...structuredFields, ...readOnlyFields]);

/** Top-level keys no custom attribute may take: clients unwrap these as lists (DECISIONS §10). */
export const reservedTopLevelNames = new Set(['content', 'data', 'rows', 'metaInfo', 'meta', 'cursor']);

/** 001: the timezones a patient can be created with. */
export const supportedTimezones = [
  'US/Eastern',
  'US/Central',
  'US/Mountain',
  'US/Pacific',
  'US/Alaska',
  'US/Arizona',
  'US/Hawaii',
  'WET',
  'CET',
  'EET',
  'Asia/Dubai',
  'Asia/Singapore',
  'Australia/Perth',
  'Australia/Darwin',
  'Australia/Brisbane',
  'Australia/Adelaide',
  'Australia/Broken_Hill',
  'Antarctica/Casey',
  'Australia/Hobart',
  'Australia/Sydney',
  'Australia/Lord_Howe',
] as const;
