import type { PatientTerritory } from '../../db/schema.ts';
import { type FieldDefinition, fieldValueProblem, isBlank, isCalendarDay } from '../../formation/field-types.ts';
import { builtInPatientFields } from '../../formation/patient-fields.ts';
import type { Formation } from '../../formation/schemas.ts';
import { badField, type FieldError, validationError } from '../../wire/errors.ts';
import { isInstant, readInstant } from '../../wire/schemas.ts';

export interface CareTeamEntry {
  userId: string;
  pointOfContact: boolean;
}

/**
 * 001: exactly one member is the point of contact; when none is flagged, the first listed is.
 * A member listed twice, or two members flagged, is a 400.
 */
export function normalizeCareTeam(members: { id: string; pointOfContact?: boolean | null }[], path: string): CareTeamEntry[] {
  const seen = new Set<string>();
  for (const [index, member] of members.entries()) {
    if (seen.has(member.id)) throw badField(`${path}.${index}.id`, 'is listed twice');
    seen.add(member.id);
  }
  const flagged = members.filter((member) => member.pointOfContact === true).length;
  if (flagged > 1) throw badField(path, 'exactly one member can be the point of contact');
  return members.map((member, index) => ({
    userId: member.id,
    pointOfContact: flagged === 0 ? index === 0 : member.pointOfContact === true,
  }));
}

/** 001: territories must be defined in the formation; each territory must belong to its region. */
export function checkTerritories(
  formation: Formation,
  input: { patientRegion?: string | null; patientTerritory?: string | null; patientTerritories?: PatientTerritory[] | null },
): void {
  const regions = new Map((formation.territories ?? []).map((region) => [region.name, new Set(region.territories)]));
  const errors: FieldError[] = [];
  for (const [index, entry] of (input.patientTerritories ?? []).entries()) {
    const territories = regions.get(entry.name);
    if (!territories) {
      errors.push({ path: `body.patientTerritories.${index}.name`, message: `no region "${entry.name}" in the formation` });
      continue;
    }
    for (const territory of entry.territories) {
      if (!territories.has(territory)) {
        errors.push({
          path: `body.patientTerritories.${index}.territories`,
          message: `no territory "${territory}" in region "${entry.name}"`,
        });
      }
    }
  }
  const region = input.patientRegion ? regions.get(input.patientRegion) : undefined;
  if (input.patientRegion && !region) {
    errors.push({ path: 'body.patientRegion', message: `no region "${input.patientRegion}" in the formation` });
  }
  if (input.patientTerritory) {
    const candidates = region ? [region] : [...regions.values()];
    if (!candidates.some((territories) => territories.has(input.patientTerritory ?? ''))) {
      errors.push({ path: 'body.patientTerritory', message: `no territory "${input.patientTerritory}" in the formation` });
    }
  }
  if (errors.length > 0) throw validationError(errors);
}

/** The region and territory lists the filters search, from both ways of writing them. */
export function derivedTerritories(state: {
  patientRegion: string | null;
  patientTerritory: string | null;
  patientTerritories: PatientTerritory[];
}): { regions: string[]; territories: string[] } {
  const regions = new Set<string>();
  const territories = new Set<string>();
  if (state.patientRegion) regions.add(state.patientRegion);
  if (state.patientTerritory) territories.add(state.patientTerritory);
  for (const entry of state.patientTerritories) {
    regions.add(entry.name);
    for (const territory of entry.territories) territories.add(territory);
  }
  return { regions: [...regions], territories: [...territories] };
}

/**
 * Custom attributes (extra top-level keys) and the designer's required-field rules, both from
 * the formation's patientAttributes. Returns the custom attribute values present in `body`.
 */
export function checkAttributes(
  formation: Formation,
  body: Record<string, unknown>,
  ignoredKeys: ReadonlySet<string>,
  creating: boolean,
): Record<string, unknown> {
  const attributes = formation.patientAttributes ?? [];
  const custom = new Map(attributes.filter((a) => !builtInPatientFields.has(a.name)).map((a) => [a.name, a]));
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(body)) {
    if (ignoredKeys.has(key) || builtInPatientFields.has(key)) continue;
    const attribute = custom.get(key);
    if (!attribute) {
      errors.push({ path: `body.${key}`, message: 'is not a patient field or a custom attribute of this formation' });
      continue;
    }
    const problem = fieldValueProblem(attribute as unknown as FieldDefinition, value);
    if (problem) errors.push({ path: `body.${key}`, message: problem });
    else values[key] = value;
  }

  for (const attribute of attributes.filter((a) => a.required)) {
    const given = Object.hasOwn(body, attribute.name);
    if ((creating || given) && isBlank(body[attribute.name])) {
      errors.push({ path: `body.${attribute.name}`, message: 'is required by the formation' });
    }
  }
  if (errors.length > 0) throw validationError(errors);
  return values;
}

/**
 * The text the substring search runs over (001): the full name, both phones, both emails, MRN,
 * NRIC and access code, lower-cased. A newline separates fields so no match spans two of them.
 */
export function searchText(p: {
  firstName: string;
  middleName: string | null;
  lastName: string;
  phone: string | null;
  secondaryPhone: string | null;
  email: string | null;
  secondaryEmail: string | null;
  mrn: string | null;
  nric: string | null;
  accessCode: string | null;
}): string {
  const fullName = [p.firstName, p.middleName, p.lastName].filter(Boolean).join(' ');
  const shortName = p.middleName ? `${p.firstName} ${p.lastName}` : null;
  return [fullName, shortName, p.phone, p.secondaryPhone, p.email, p.secondaryEmail, p.mrn, p.nric, p.accessCode]
    .filter((value): value is string => Boolean(value))
    .map((value) => value.toLowerCase().replaceAll('\n', ' '))
    .join('\n');
}

/**
 * What the search looks for: lower-cased, and a phone typed with spaces, dashes or brackets
 * also reduced to its digits so it matches the stored E.164 form. The term as typed stays one
 * of the alternatives, so an MRN, NRIC or access code like "555-0199" is still found.
 */
export function searchTerms(raw: string): string[] {
  const term = raw.trim().toLowerCase().replaceAll('\n', ' ');
  const looksLikePhone = /^[\d\s()+.-]+$/.test(term) && (term.match(/\d/g)?.length ?? 0) >= 3;
  const digits = looksLikePhone ? term.replace(/[^\d+]/g, '') : term;
  return digits === term ? [term] : [term, digits];
}

/** birthDate is a calendar day: a date-time input keeps its UTC date. */
export function birthDay(value: string | null | undefined): string | null {
  if (!value) return null;
  const day = value.slice(0, 10);
  if (!isCalendarDay(day) || (value.length > 10 && !isInstant(value))) throw badField('body.birthDate', 'is not a valid date');
  return value.length > 10 ? readInstant(value).toISOString().slice(0, 10) : day;
}
