import { uuidv7 } from '../../db/ids.ts';
import type { PatientTerritory, RowUpdate } from '../../db/schema.ts';
import type { Formation } from '../../formation/schemas.ts';
import { badField } from '../../wire/errors.ts';
import { type ScalarField, scalarFields, writableScalarFields } from './fields.ts';
import type { PatientRow } from './read.ts';
import {
  birthDay,
  type CareTeamEntry,
  checkAttributes,
  checkTerritories,
  derivedTerritories,
  normalizeCareTeam,
  searchText,
} from './rules.ts';
import type { PatientInput } from './schemas.ts';

/** Keys of a patient object that a client may send back but never writes (DECISIONS §10). */
const ignoredKeys = new Set([
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'createdByName',
  'updatedByName',
  'territorialTeam',
  'patientPrograms',
  'pointOfContact',
  'patientRegionTitle',
]);

/** Formatted fields where production sends `""` for "none": stored as null. */
const blankMeansNull = new Set<ScalarField>([
  'birthDate',
  'gender',
  'maritalStatus',
  'primaryLanguage',
  'secondaryLanguage',
  'email',
  'secondaryEmail',
  'phone',
  'secondaryPhone',
  'preferableInstancePhoneId',
  'timezone',
  'patientType',
  // Unique per instance: a blank must not make a second patient sent the same way a duplicate.
  'externalId',
  'mrn',
]);

/** Production's defaults for a new patient. */
const createDefaults = { gender: 'UNKNOWN', marital_status: 'UKN', primary_language: 'ENGLISH' };

type Columns = RowUpdate<'patients'>;

export interface PatientWrite {
  columns: Columns;
  /** The new care team, when the body sets one. */
  careTeam?: CareTeamEntry[];
  /** Names of the API fields the body changes, for the audit log. */
  changedFields: string[];
}

/**
 * Validates a create or PATCH body against the formation and turns it into column values.
 * PATCH changes only the fields present (000 convention 7); `existing` supplies the rest where
 * a derived column (search text, region lists) depends on both.
 */
export function patientWrite(body: PatientInput, formation: Formation, existing?: PatientRow): PatientWrite {
  const input = body as Record<string, unknown>;
  const creating = existing === undefined;
  const custom = checkAttributes(formation, input, ignoredKeys, creating);
  const columns: Columns = creating ? { ...createDefaults, external_guid: uuidv7() } : {};
  const changedFields: string[] = [];

  for (const field of writableScalarFields) {
    if (!Object.hasOwn(input, field)) continue;
    let value = input[field] as string | null;
    if (value === '' && blankMeansNull.has(field)) value = null;
    if (field === 'birthDate') value = birthDay(value);
    if (field === 'externalGuid' && value === null) continue;
    (columns as Record<string, unknown>)[scalarFields[field]] = value;
    changedFields.push(field);
  }
  for (const field of ['primaryPhoneCapabilities', 'secondaryPhoneCapabilities'] as const) {
    if (!Object.hasOwn(input, field)) continue;
    columns[field === 'primaryPhoneCapabilities' ? 'primary_phone_capabilities' : 'secondary_phone_capabilities'] =
      body[field] ?? [];
    changedFields.push(field);
  }
  if (Object.hasOwn(input, 'cadence')) {
    columns.cadence = JSON.stringify(body.cadence ?? []);
    changedFields.push('cadence');
  }
  if (Object.hasOwn(input, 'patientTerritories')) {
    columns.patient_territories = JSON.stringify(body.patientTerritories ?? []);
    changedFields.push('patientTerritories');
  }

  const phoneId = columns.preferable_instance_phone_id;
  if (phoneId && !(formation.instancePhones ?? []).some((phone) => phone.id === phoneId)) {
    throw badField('body.preferableInstancePhoneId', 'is not an instance phone of this formation');
  }

  const state = mergedState(columns, body, existing);
  checkTerritories(formation, {
    patientRegion: Object.hasOwn(input, 'patientRegion') ? state.patientRegion : null,
    patientTerritory: Object.hasOwn(input, 'patientTerritory') ? state.patientTerritory : null,
    patientTerritories: body.patientTerritories ?? null,
  });
  const derived = derivedTerritories(state);
  columns.regions = derived.regions;
  columns.territories = derived.territories;
  columns.search_text = searchText(state);

  if (Object.keys(custom).length > 0) {
    const merged = { ...((existing?.custom_attributes as Record<string, unknown>) ?? {}), ...custom };
    for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
    columns.custom_attributes = JSON.stringify(merged);
    changedFields.push(...Object.keys(custom));
  }

  // careTeam wins over the deprecated careTeamMembers when a client sends both.
  const team = Object.hasOwn(input, 'careTeam') ? body.careTeam : body.careTeamMembers;
  const teamPath = Object.hasOwn(input, 'careTeam') ? 'body.careTeam' : 'body.careTeamMembers';
  const write: PatientWrite = { columns, changedFields };
  if (Object.hasOwn(input, 'careTeam') || Object.hasOwn(input, 'careTeamMembers')) {
    write.careTeam = normalizeCareTeam(team ?? [], teamPath);
    changedFields.push('careTeam');
  }
  return write;
}

function mergedState(columns: Columns, body: PatientInput, existing: PatientRow | undefined) {
  const pick = <K extends keyof PatientRow>(column: K): PatientRow[K] =>
    (Object.hasOwn(columns, column) ? (columns as Record<string, unknown>)[column] : existing?.[column]) as PatientRow[K];
  return {
    firstName: pick('first_name') ?? '',
    middleName: pick('middle_name') ?? null,
    lastName: pick('last_name') ?? '',
    phone: pick('phone') ?? null,
    secondaryPhone: pick('secondary_phone') ?? null,
    email: pick('email') ?? null,
    secondaryEmail: pick('secondary_email') ?? null,
    mrn: pick('mrn') ?? null,
    nric: pick('nric') ?? null,
    accessCode: pick('access_code') ?? null,
    patientRegion: pick('patient_region') ?? null,
    patientTerritory: pick('patient_territory') ?? null,
    patientTerritories: (body.patientTerritories !== undefined
      ? (body.patientTerritories ?? [])
      : (existing?.patient_territories ?? [])) as PatientTerritory[],
  };
}
