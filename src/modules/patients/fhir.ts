import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import { compact, dateParam, type FhirResource, invalidParam, isUuid, nothing, stringParam, tokenOf } from '../../http/fhir.ts';

/**
 * A Cairn patient as a FHIR R4 Patient, profiled as US Core 6.1.0 Patient: the table's row, no
 * relations (the care team, programs and territories have no home on Patient; they are
 * CareTeam and the like). Each field's mapping, and the must-supports Cairn holds no data for
 * (race, ethnicity, a name's suffix or period, previous names), are in docs/fhir.md.
 */

/** The identifier systems: stable URIs naming which of Cairn's keys a value is. */
export const IDENTIFIER_SYSTEMS = {
  id: 'https://cairn.health/fhir/sid/patient-id',
  externalGuid: 'https://cairn.health/fhir/sid/patient-external-guid',
  externalId: 'https://cairn.health/fhir/sid/patient-external-id',
  mrn: 'https://cairn.health/fhir/sid/mrn',
} as const;

/** The identifier column each system searches (`identifier=system|value`). */
const IDENTIFIER_COLUMNS = {
  [IDENTIFIER_SYSTEMS.id]: 'id',
  [IDENTIFIER_SYSTEMS.externalGuid]: 'external_guid',
  [IDENTIFIER_SYSTEMS.externalId]: 'external_id',
  [IDENTIFIER_SYSTEMS.mrn]: 'mrn',
} as const;

/** Cairn's gender (MALE, FEMALE, OTHER, UNKNOWN) as FHIR's AdministrativeGender; none is `unknown` (US Core needs one). */
const GENDERS: Record<string, string> = { MALE: 'male', FEMALE: 'female', OTHER: 'other', UNKNOWN: 'unknown' };

const v2 = 'http://terminology.hl7.org/CodeSystem/v2-0203';

type PatientRow = Row<'patients'>;

const present = <T>(values: (T | null | undefined | false)[]): T[] => values.filter((value): value is T => Boolean(value));

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
    ...(row.primary_language || row.secondary_language
      ? {
          communication: present([
            row.primary_language && { language: languageOf(row.primary_language), preferred: true },
            row.secondary_language && { language: languageOf(row.secondary_language) },
          ]),
        }
      : {}),
  };
}

/**
 * Cairn's language codes (the formation's upper-case names, 001) as BCP 47, for the ones whose
 * code is plain: US Core's binding (simple-language) is extensible, so another name is text alone.
 */
const BCP_47: Record<string, string> = {
  ARABIC: 'ar',
  CHINESE: 'zh',
  ENGLISH: 'en',
  FRENCH: 'fr',
  GERMAN: 'de',
  HINDI: 'hi',
  ITALIAN: 'it',
  JAPANESE: 'ja',
  KOREAN: 'ko',
  POLISH: 'pl',
  PORTUGUESE: 'pt',
  RUSSIAN: 'ru',
  SPANISH: 'es',
  TAGALOG: 'tl',
  VIETNAMESE: 'vi',
};

/** A language as the formation names it (`ENGLISH`): its BCP 47 coding where plain, its name as text always. */
function languageOf(language: string) {
  const code = BCP_47[language.toUpperCase()];
  return { ...(code ? { coding: [{ system: 'urn:ietf:bcp:47', code }] } : {}), text: language };
}

/** A phone's label as ContactPoint.use where FHIR has one (`mobile`, `home`, `work`). */
function phoneUse(label: string | null): { use?: string } {
  const use = label?.toLowerCase();
  return use === 'mobile' || use === 'home' || use === 'work' ? { use } : {};
}

/** `system|value`, `|value` (no system) or `value` (any of Cairn's keys). */
function identifier(token: string) {
  const { system, code: value } = tokenOf(token);
  // A system Cairn does not issue names nothing here.
  if (system !== undefined && system !== '' && !(system in IDENTIFIER_COLUMNS)) return nothing;
  const columns = system ? [IDENTIFIER_COLUMNS[system as keyof typeof IDENTIFIER_COLUMNS]] : Object.values(IDENTIFIER_COLUMNS);
  // uuid columns compare only with a uuid.
  const usable = columns.filter((column) => isUuid(value) || (column !== 'id' && column !== 'external_guid'));
  if (usable.length === 0) return nothing;
  return sql<SqlBool>`(${sql.join(
    usable.map((column) => sql`${sql.ref(`r.${column}`)} = ${value}`),
    sql` OR `,
  )})`;
}

function gender(value: string) {
  const cairn = Object.entries(GENDERS).find(([, fhir]) => fhir === value)?.[0];
  if (!cairn) throw invalidParam('gender', 'must be male, female, other or unknown');
  // A patient with no gender is shown as unknown, so found as unknown.
  return cairn === 'UNKNOWN' ? sql<SqlBool>`(r.gender = ${cairn} OR r.gender IS NULL)` : sql<SqlBool>`r.gender = ${cairn}`;
}

/**
 * Patient, as US Core 6.1.0 profiles it, with its mandatory searches: strings match
 * case-insensitively at the start of a name part, as FHIR's string search does, each served by an
 * index on the lower-cased name (migration 0030).
 */
export const fhirPatient: FhirResource = {
  type: 'Patient',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient',
  permission: 'PATIENT_READ',
  table: 'patients',
  instanceScoped: true,
  patient: { column: 'id' },
  logAs: 'PATIENT',
  auditEntity: 'PATIENT',
  notFound: 'PATIENT_NOT_FOUND',
  params: {
    identifier: { type: 'token', where: identifier },
    name: stringParam('name', 'last_name', 'first_name', 'middle_name'),
    family: stringParam('family', 'last_name'),
    given: stringParam('given', 'first_name', 'middle_name'),
    birthdate: dateParam('birthdate', 'birth_date', 'date'),
    gender: { type: 'token', where: gender },
  },
  toFhir: (row: PatientRow) => compact(patientOf(row)),
};
