import type { PatientsTable } from '../../db/schema.ts';
import type { ScalarPatientField } from '../../formation/patient-fields.ts';

type Column = keyof PatientsTable & string;

/**
 * The patient's scalar fields: API name → column. Create and PATCH copy these one to one;
 * every one can be sorted on (DECISIONS §8), and each has an index (migrations 0002 and 0004).
 */
export const scalarFields = {
  id: 'id',
  externalGuid: 'external_guid',
  externalId: 'external_id',
  mrn: 'mrn',
  nric: 'nric',
  accessCode: 'access_code',
  firstName: 'first_name',
  lastName: 'last_name',
  middleName: 'middle_name',
  birthDate: 'birth_date',
  gender: 'gender',
  maritalStatus: 'marital_status',
  primaryLanguage: 'primary_language',
  secondaryLanguage: 'secondary_language',
  email: 'email',
  secondaryEmail: 'secondary_email',
  phone: 'phone',
  secondaryPhone: 'secondary_phone',
  phoneLabel: 'phone_label',
  secondaryPhoneLabel: 'secondary_phone_label',
  preferableInstancePhoneId: 'preferable_instance_phone_id',
  country: 'country',
  state: 'state',
  city: 'city',
  zip: 'zip',
  addressLine1: 'address_line1',
  addressLine2: 'address_line2',
  timezone: 'timezone',
  patientType: 'patient_type',
  notes: 'notes',
  patientRegion: 'patient_region',
  patientTerritory: 'patient_territory',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  createdBy: 'created_by',
  updatedBy: 'updated_by',
  createdByName: 'created_by_name',
  updatedByName: 'updated_by_name',
} as const satisfies Record<ScalarPatientField, Column>;

export type ScalarField = keyof typeof scalarFields;

const systemFields = new Set<ScalarField>([
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'createdByName',
  'updatedByName',
]);

/** Scalar fields a client writes. */
export const writableScalarFields = (Object.keys(scalarFields) as ScalarField[]).filter((field) => !systemFields.has(field));

/** Sort keys for `GET /patients`: API name → `p.<column>`. */
export const sortableFields: Record<string, string> = Object.fromEntries(
  (Object.entries(scalarFields) as [ScalarField, Column][])
    // Notes sort by the prefix their index holds (migration 0004).
    .map(([field, column]) => [field, field === 'notes' ? 'left(p.notes, 200)' : `p.${column}`]),
);
