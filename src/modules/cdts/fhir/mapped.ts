import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Row } from '../../../db/schema.ts';
import {
  type CdtFhirMapping,
  type CdtResourceType,
  cdtProfiles,
  defaultStatus,
  statusCodes,
} from '../../../formation/cdt-fhir.ts';
import type { FieldType } from '../../../formation/field-types.ts';
import type { Formation } from '../../../formation/schemas.ts';
import {
  checkValue,
  dateCondition,
  type FhirParam,
  type FhirResource,
  invalidParam,
  nothing,
  referenceParam,
  tokenOf,
} from '../../../http/fhir.ts';

/**
 * What the CDTs a formation declares as FHIR resources share (docs/fhir.md "Clinical data from
 * CDTs"): a resource type's CDTs, its search parameters as conditions per CDT (each CDT's records
 * where its mapping says), and the elements every mapping fills the same way. Each resource's own
 * file (observation.ts, condition.ts, ...) maps a record to its profile.
 */

export type CdtRow = Row<'cdt_records'> & { values: Record<string, unknown> };

/** A CDT the formation declares as a resource of this type: its name, mapping and its fields' types. */
export interface MappedCdt {
  name: string;
  mapping: CdtFhirMapping;
  types: ReadonlyMap<string, FieldType>;
}

export function mappedCdts(formation: Formation, resource: CdtResourceType): MappedCdt[] {
  return (formation.cdts ?? []).flatMap((cdt) =>
    cdt.fhir && cdtProfiles[cdt.fhir.profile].resource === resource
      ? [
          {
            name: cdt.name,
            mapping: cdt.fhir,
            types: new Map(cdt.fields.map((field) => [field.name, field.type.toLowerCase() as FieldType])),
          },
        ]
      : [],
  );
}

/** A field's value in a record (the JSON's text, for a condition). */
export const fieldText = (field: string) => sql<string>`(r.values ->> ${field})`;

/**
 * The records of the CDTs for which `condition` holds: `true` takes all of a CDT's records (their
 * names in one IN, which the patient index serves), `false` none, a condition those of its records
 * that meet it. No CDT left is no record.
 */
export function whereCdts(mapped: readonly MappedCdt[], condition: (cdt: MappedCdt) => RawBuilder<SqlBool> | boolean) {
  const all: string[] = [];
  const some: RawBuilder<SqlBool>[] = [];
  for (const cdt of mapped) {
    const held = condition(cdt);
    if (held === true) all.push(cdt.name);
    else if (held !== false) some.push(sql<SqlBool>`(r.cdt_name = ${cdt.name} AND ${held})`);
  }
  const parts = [...(all.length > 0 ? [sql<SqlBool>`r.cdt_name IN (${sql.join(all)})`] : []), ...some];
  return parts.length === 0 ? nothing : sql<SqlBool>`(${sql.join(parts, sql` OR `)})`;
}

/** `code` (Observation, Condition, AllergyIntolerance) or `code` of a medication: the CDT's code, fixed or in its field. */
export function codeParam(mapped: readonly MappedCdt[]): FhirParam {
  return {
    type: 'token',
    where: (token) => {
      const { system, code } = tokenOf(token);
      return whereCdts(mapped, ({ mapping }) => {
        if (system !== undefined && system !== mapping.code.system) return false;
        if (mapping.code.code !== undefined) return mapping.code.code === code;
        return sql<SqlBool>`${fieldText(mapping.code.field!)} = ${code}`;
      });
    },
  };
}

/** A status parameter over the CDTs' fixed status or status field; a code outside R4's binding is a 400. */
export function statusParam(name: string, resource: CdtResourceType, mapped: readonly MappedCdt[]): FhirParam {
  const codes = statusCodes[resource];
  return {
    type: 'token',
    where: (token) => {
      const { code } = tokenOf(token);
      if (!codes.includes(code)) throw invalidParam(name, `must be one of ${codes.join(', ')}`);
      return whereCdts(mapped, ({ mapping }) => {
        if (mapping.status?.field) return sql<SqlBool>`${fieldText(mapping.status.field)} = ${code}`;
        return (mapping.status?.code ?? defaultStatus[resource]) === code;
      });
    },
  };
}

/**
 * A token every record of a CDT has one value of (its category, its intent), from the mapping; a
 * code outside `known` (the element's binding) is a 400.
 */
export function fixedParam(
  name: string,
  system: string | ((code: string) => string),
  mapped: readonly MappedCdt[],
  codeOfCdt: (cdt: MappedCdt) => string,
  known: readonly string[],
): FhirParam {
  return {
    type: 'token',
    where: (token) => {
      const { system: asked, code } = tokenOf(token);
      if (!known.includes(code)) throw invalidParam(name, `must be one of ${known.join(', ')}`);
      if (asked !== undefined && asked !== (typeof system === 'string' ? system : system(code))) return nothing;
      return whereCdts(mapped, (cdt) => codeOfCdt(cdt) === code);
    },
  };
}

/**
 * The expression of a record's date: its date field's, read only when it is one (a value written
 * under an older formation is not cast), or its creation.
 */
function dateOf(cdt: MappedCdt, orCreated: boolean): { expression: RawBuilder<unknown>; kind: 'date' | 'instant' } | undefined {
  const field = cdt.mapping.date?.field;
  if (!field) return orCreated ? { expression: sql`r.created_at`, kind: 'instant' } : undefined;
  const value = fieldText(field);
  return cdt.types.get(field) === 'date'
    ? { expression: sql`(CASE WHEN ${value} ~ '^\\d{4}-\\d{2}-\\d{2}$' THEN (${value})::date END)`, kind: 'date' }
    : { expression: sql`(CASE WHEN ${value} ~ '^\\d{4}-\\d{2}-\\d{2}T' THEN (${value})::timestamptz END)`, kind: 'instant' };
}

/**
 * A date parameter over each CDT's date field; `orCreated`, the record's creation where a CDT has
 * none (an Observation's effective time), else such a CDT's records have no date and match none.
 */
export function cdtDateParam(name: string, mapped: readonly MappedCdt[], orCreated: boolean): FhirParam {
  return {
    type: 'date',
    where: (given) => {
      // A bad value is a 400 whichever CDTs there are.
      checkValue(name, 'date', given);
      return whereCdts(mapped, (cdt) => {
        const date = dateOf(cdt, orCreated);
        return date ? dateCondition(name, date.expression, date.kind, given) : false;
      });
    },
  };
}

/** The patient parameter every CDT resource has. */
export const patientParam = referenceParam('Patient', 'patient_id');

/** The date field's value where the record has one (a Condition's onset); undefined is left out. */
export function fieldDate(mapping: CdtFhirMapping, row: CdtRow): string | undefined {
  const value = mapping.date ? row.values[mapping.date.field] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A record's date as FHIR writes it: its date field's value, or when it was created. */
export const recordDate = (mapping: CdtFhirMapping, row: CdtRow): string =>
  fieldDate(mapping, row) ?? row.created_at.toISOString();

/** What every CDT resource begins with: its type, id and meta (when it changed, the profile its CDT is). */
export const resourceHead = (resourceType: CdtResourceType, mapping: CdtFhirMapping, row: CdtRow) => ({
  resourceType,
  id: row.id,
  meta: { lastUpdated: row.updated_at.toISOString(), profile: [profileUrl(mapping.profile)] },
});

const DATA_ABSENT_SYSTEM = 'http://terminology.hl7.org/CodeSystem/data-absent-reason';

/** A record's code: the CDT's own, or its field's in the CDT's system, with its text; `unknown` (data-absent-reason) when it has none. */
export function codeOf(mapping: CdtFhirMapping, row: CdtRow) {
  const { code } = mapping;
  const text = code.textField ? row.values[code.textField] : undefined;
  const value = code.code ?? row.values[code.field!];
  const coded = typeof value === 'string' && value !== '';
  return {
    coding: coded
      ? [{ system: code.system, code: value, ...(code.code !== undefined && code.display ? { display: code.display } : {}) }]
      : typeof text === 'string' && text !== ''
        ? undefined
        : [{ system: DATA_ABSENT_SYSTEM, code: 'unknown', display: 'Unknown' }],
    text: typeof text === 'string' && text !== '' ? text : code.code !== undefined ? code.display : undefined,
  };
}

/** A record's status: the CDT's fixed one, its field's when it is one of FHIR's codes, or the resource's default. */
export function statusOf(resource: CdtResourceType, mapping: CdtFhirMapping, row: CdtRow): string {
  if (mapping.status?.code) return mapping.status.code;
  const value = mapping.status?.field ? row.values[mapping.status.field] : undefined;
  return typeof value === 'string' && statusCodes[resource].includes(value) ? value : defaultStatus[resource];
}

const PROFILE_BASE = 'http://hl7.org/fhir/us/core/StructureDefinition/';
export const profileUrl = (profile: string) => `${PROFILE_BASE}${profile}`;

/**
 * A FHIR resource served from the CDTs the formation declares as `type`: the declaration (whose
 * parameters the CapabilityStatement lists: those of a formation without any) and, per formation,
 * the resource over its CDTs' records (`formed`). `build` gives a formation's parameters and mapping.
 */
export function cdtResource(
  type: CdtResourceType,
  profiles: string[],
  build: (mapped: readonly MappedCdt[]) => Pick<FhirResource, 'params' | 'toFhir' | 'columns'>,
): FhirResource {
  const formed = (formation: Formation): FhirResource => {
    const mapped = mappedCdts(formation, type);
    return {
      type,
      profile: profileUrl(profiles[0]!),
      otherProfiles: profiles.slice(1).map(profileUrl),
      permission: 'CDT_READ',
      table: 'cdt_records',
      instanceScoped: true,
      where: [whereCdts(mapped, () => true)],
      patient: { column: 'patient_id' },
      logAs: 'CDT_RECORD',
      auditEntity: 'CDT_RECORD',
      notFound: 'DT_RECORD_NOT_FOUND',
      ...build(mapped),
    };
  };
  return { ...formed({}), formed };
}

/** Which mapping a row's CDT has, by name, for `toFhir`. */
export function mappingsByName(mapped: readonly MappedCdt[]): ReadonlyMap<string, MappedCdt> {
  return new Map(mapped.map((cdt) => [cdt.name, cdt]));
}
