import { type AliasedRawBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Permission } from '../formation/permissions.ts';
import { type ErrorCode, validationError } from '../wire/errors.ts';

/**
 * FHIR R4 over Cairn's tables (docs/fhir.md). Areas declare the FHIR resources their records are
 * on their Area (`fhir`), as they declare their exports; the fhir area serves each at
 * `/{tenant}/{instance}/fhir/R4/{type}` (read and search) and lists it in the CapabilityStatement.
 * A resource is a row of one table mapped by a plain function, and its search parameters are
 * conditions on that table (aliased `r`), so every search is one indexed statement.
 */

/**
 * One search parameter: its FHIR type, and one value (a comma's alternatives come one by one) as a
 * condition; one that reads another table names the tenant there too.
 */
export interface FhirParam {
  type: 'token' | 'string' | 'date' | 'reference';
  where(value: string, tenantId: string): RawBuilder<SqlBool>;
}

export interface FhirResource {
  /** FHIR's resource type: Patient, Practitioner, Task. */
  type: string;
  /** The US Core profile it conforms to, where US Core has one. */
  profile?: string;
  /** The permission that reads the records in Cairn's own API: a role that cannot read tasks cannot read Task. */
  permission: Permission;
  /** The table read, aliased `r`: its rows have tenant_id, id and updated_at. */
  table: keyof DB & string;
  /** Whether its rows are an instance's (most) or the tenant's (users). */
  instanceScoped: boolean;
  /** Conditions every read adds (not deleted). */
  where?: RawBuilder<SqlBool>[];
  /**
   * The patients a row is about, for the access log: the column (`patient_id`; `id` for Patient
   * itself), a function of the row where they are not one column (an appointment's participants),
   * or why its rows carry no patient data.
   */
  patient: { column: string } | { of: (row: never) => unknown[] } | { none: string };
  /**
   * What its rows need besides `r.*`, composed into the same statement (an appointment's
   * participants as JSON), each naming the tenant as a parameter.
   */
  columns?: (tenantId: string) => AliasedRawBuilder<unknown, string>[];
  /** What the access log calls its records (PATIENT, TASK). */
  logAs: string;
  /** The error a read of an id not there answers, as Cairn's own read does (TASK_NOT_FOUND). */
  notFound: ErrorCode;
  /** Its own search parameters; `_id` and `_lastUpdated` every resource has. */
  params: Record<string, FhirParam>;
  /** A row as the resource, elements without a value left out. */
  toFhir(row: never): Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);

/** A condition no row meets: a value that cannot name one (an `_id` that is not a uuid). */
export const nothing = sql<SqlBool>`false`;

export const invalidParam = (param: string, message: string) => validationError([{ path: `querystring.${param}`, message }]);

const column = (name: string) => sql.ref(`r.${name}`);

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

/**
 * Why an element a profile makes mandatory has no value (`_family: absent('unknown')`), as US Core
 * asks instead of leaving it out.
 */
export const absent = (reason: 'unknown' | 'asked-unknown' | 'not-applicable' | 'masked') => ({
  extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: reason }],
});

/** A reference to a resource Cairn serves, by its id. */
export const reference = (type: string, id: string | null | undefined) => (id ? { reference: `${type}/${id}` } : undefined);

/** A token's parts: `system|code`, `|code` (no system: '') or `code` (any system: undefined). */
export function tokenOf(token: string): { system: string | undefined; code: string } {
  const bar = token.indexOf('|');
  return bar >= 0 ? { system: token.slice(0, bar), code: token.slice(bar + 1) } : { system: undefined, code: token };
}

/** The id a reference parameter names: `Type/{id}` or the bare id. */
export const referencedId = (type: string, value: string) =>
  value.startsWith(`${type}/`) ? value.slice(type.length + 1) : value;

/** `x%` for a case-insensitive starts-with, LIKE's own characters escaped. */
const prefix = (value: string) => `${value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A string parameter: the value starts any of the columns, in any case (an index on `lower(column)` serves each). */
export function stringParam(...columns: string[]): FhirParam {
  return {
    type: 'string',
    where: (value) =>
      sql<SqlBool>`(${sql.join(
        columns.map((name) => sql`lower(${column(name)}) LIKE ${prefix(value)}`),
        sql` OR `,
      )})`,
  };
}

/**
 * A token parameter over one column: `code` or `system|code`, the code mapped to Cairn's value
 * (`toCairn` answers undefined for a code FHIR does not define here: 400, naming the codes).
 */
export function tokenParam(name: string, columnName: string, codes: Record<string, string>): FhirParam {
  return {
    type: 'token',
    where: (token) => {
      const { code } = tokenOf(token);
      const cairn = Object.entries(codes)
        .filter(([, fhir]) => fhir === code)
        .map(([value]) => value);
      if (cairn.length === 0) throw invalidParam(name, `must be one of ${[...new Set(Object.values(codes))].join(', ')}`);
      return sql<SqlBool>`${column(columnName)} IN (${sql.join(cairn)})`;
    },
  };
}

/** A reference parameter (`patient=Patient/{id}` or `{id}`) over a uuid column. */
export function referenceParam(type: string, columnName: string): FhirParam {
  return {
    type: 'reference',
    where: (value) => {
      const id = referencedId(type, value);
      return isUuid(id) ? sql<SqlBool>`${column(columnName)} = ${id}` : nothing;
    },
  };
}

const PREFIXES = ['eq', 'ne', 'lt', 'gt', 'le', 'ge', 'sa', 'eb'] as const;
const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * A date parameter over a date or timestamp column: a prefix (`ge2020-01-01`), then a year, a
 * month, a day or an instant, each the range it covers (FHIR: `eq2020` is any day of 2020).
 */
export function dateParam(name: string, columnName: string, kind: 'date' | 'instant'): FhirParam {
  return {
    type: 'date',
    where: (given) => {
      const prefixed = PREFIXES.find((candidate) => given.startsWith(candidate));
      const op = prefixed ?? 'eq';
      const text = prefixed ? given.slice(2) : given;
      const match = DATE.exec(text);
      if (!match) throw invalidParam(name, 'must be a date: [prefix]YYYY, YYYY-MM, YYYY-MM-DD or an instant');
      const [, year, month, day] = match;
      const start = text.includes('T')
        ? new Date(text)
        : new Date(Date.UTC(Number(year), Number(month ?? 1) - 1, Number(day ?? 1)));
      if (Number.isNaN(start.getTime())) throw invalidParam(name, 'is not a date');
      const end = text.includes('T')
        ? new Date(start.getTime() + 1)
        : new Date(
            Date.UTC(
              Number(year) + (month ? 0 : 1),
              Number(month ?? 1) - 1 + (month && !day ? 1 : 0),
              Number(day ?? 1) + (day ? 1 : 0),
            ),
          );
      const at = (instant: Date) => (kind === 'date' ? instant.toISOString().slice(0, 10) : instant);
      const ref = column(columnName);
      switch (op) {
        case 'eq':
          return sql<SqlBool>`(${ref} >= ${at(start)} AND ${ref} < ${at(end)})`;
        case 'ne':
          return sql<SqlBool>`(${ref} < ${at(start)} OR ${ref} >= ${at(end)})`;
        case 'lt':
        case 'eb':
          return sql<SqlBool>`${ref} < ${at(start)}`;
        case 'le':
          return sql<SqlBool>`${ref} < ${at(end)}`;
        case 'gt':
        case 'sa':
          return sql<SqlBool>`${ref} >= ${at(end)}`;
        case 'ge':
          return sql<SqlBool>`${ref} >= ${at(start)}`;
      }
    },
  };
}

/** The parameters every resource has. */
export const commonParams: Record<string, FhirParam> = {
  _id: { type: 'token', where: (value) => (isUuid(value) ? sql<SqlBool>`r.id = ${value}` : nothing) },
  _lastUpdated: dateParam('_lastUpdated', 'updated_at', 'instant'),
};
