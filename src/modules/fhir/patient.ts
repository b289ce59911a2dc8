import type { Row } from '../../db/schema.ts';

/**
 * A Cairn patient as a FHIR R4 Patient, profiled as US Core 5.0.1 Patient: the table's row, no
 * relations (the care team, programs and territories have no home on Patient; they are
 * CareTeam and the like). Each field's mapping is in docs/fhir.md.
 */

/** The identifier systems: stable URIs naming which of Cairn's keys a value is. */
export const IDENTIFIER_SYSTEMS = {
  id: 'https://cairn.health/fhir/sid/patient-id',
  externalGuid: 'https://cairn.health/fhir/sid/patient-external-guid',
  externalId: 'https://cairn.health/fhir/sid/patient-external-id',
  mrn: 'https://cairn.health/fhir/sid/mrn',
} as const;

/** The identifier column each system searches (`identifier=system|value`). */
export const IDENTIFIER_COLUMNS = {
  [IDENTIFIER_SYSTEMS.id]: 'id',
  [IDENTIFIER_SYSTEMS.externalGuid]: 'external_guid',
  [IDENTIFIER_SYSTEMS.externalId]: 'external_id',
  [IDENTIFIER_SYSTEMS.mrn]: 'mrn',
} as const;

/** Cairn's gender (MALE, FEMALE, OTHER, UNKNOWN) as FHIR's AdministrativeGender; none is `unknown` (US Core needs one). */
export const GENDERS: Record<string, string> = { MALE: 'male', FEMALE: 'female', OTHER: 'other', UNKNOWN: 'unknown' };

const v2 = 'http://terminology.hl7.org/CodeSystem/v2-0203';

type PatientRow = Row<'patients'>;

const present = <T>(values: (T | null | undefined | false)[]): T[] => values.filter((value): value is T => Boolean(value));

/** FHIR has no empty arrays and no nulls: an element without a value is left out. */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) return value.map(compact) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const kept = Object.entries(value).flatMap(([key, item]) => {
    const element = compact(item);
    return element === null || element === undefined || (Array.isArray(element) && element.length === 0) ? [] : [[key, element]];
  });
  return Object.fromEntries(kept) as T;
}

export function fhirPatient(row: PatientRow) {
  return compact(patientOf(row));
}

function patientOf(row: PatientRow) {
  const phones = [
    [row.phone, row.phone_label],
    [row.secondary_phone, row.secondary_phone_label],
  ] as const;
  const address = present([row.address_line1, row.address_line2, row.city, row.state, row.zip, row.country]).length > 0;
  return {
    resourceType: 'Patient',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: present([
      { use: 'usual', system: IDENTIFIER_SYSTEMS.id, value: row.id },
      row.mrn !== null && {
        use: 'official',
        type: { coding: [{ system: v2, code: 'MR', display: 'Medical record number' }] },
        system: IDENTIFIER_SYSTEMS.mrn,
        value: row.mrn,
      },
      row.external_id !== null && { use: 'secondary', system: IDENTIFIER_SYSTEMS.externalId, value: row.external_id },
      { use: 'secondary', system: IDENTIFIER_SYSTEMS.externalGuid, value: row.external_guid },
    ]),
    active: true,
    name: [{ use: 'official', family: row.last_name, given: present([row.first_name, row.middle_name]) }],
    telecom: present([
      ...phones.map(([value, label], index) => value !== null && { system: 'phone', value, rank: index + 1, ...phoneUse(label) }),
      row.email !== null && { system: 'email', value: row.email, rank: 1 },
      row.secondary_email !== null && { system: 'email', value: row.secondary_email, rank: 2 },
    ]),
    gender: GENDERS[row.gender ?? ''] ?? 'unknown',
    ...(row.birth_date ? { birthDate: row.birth_date.slice(0, 10) } : {}),
    ...(address
      ? {
          address: [
            {
              use: 'home',
              ...(row.address_line1 || row.address_line2 ? { line: present([row.address_line1, row.address_line2]) } : {}),
              ...(row.city ? { city: row.city } : {}),
              ...(row.state ? { state: row.state } : {}),
              ...(row.zip ? { postalCode: row.zip } : {}),
              ...(row.country ? { country: row.country } : {}),
            },
          ],
        }
      : {}),
    ...(row.marital_status ? { maritalStatus: { text: row.marital_status } } : {}),
    // Cairn keeps a language as the formation names it, not as a BCP 47 code: text, not a coding.
    ...(row.primary_language || row.secondary_language
      ? {
          communication: present([
            row.primary_language && { language: { text: row.primary_language }, preferred: true },
            row.secondary_language && { language: { text: row.secondary_language } },
          ]),
        }
      : {}),
  };
}

/** A phone's label as ContactPoint.use where FHIR has one (`mobile`, `home`, `work`). */
function phoneUse(label: string | null): { use?: string } {
  const use = label?.toLowerCase();
  return use === 'mobile' || use === 'home' || use === 'work' ? { use } : {};
}
