import { type AliasedRawBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Permission } from '../formation/permissions.ts';
import type { Formation } from '../formation/schemas.ts';
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
  /**
   * A parameter of Cairn's own, not R4's: the canonical URL of its SearchParameter and what it
   * matches, which the CapabilityStatement shows (R4: `searchParam.definition`, `documentation`).
   */
  definition?: { url: string; documentation: string };
  /**
   * A reference parameter's targets in a row: what `_include={Type}:{param}` adds to a search's
   * page. `referenceParam` has it from its column; the others say where theirs are.
   */
  includes?: Includes;
}

/** A resource a row refers to. */
export interface Referenced {
  type: string;
  id: string;
}

export interface Includes {
  /** The types it may refer to, for the CapabilityStatement's `searchInclude`. */
  targets: string[];
  refersTo(row: never): Referenced[];
}

export interface FhirResource {
  /** FHIR's resource type: Patient, Practitioner, Task. */
  type: string;
  /** The US Core profile it conforms to, where US Core has one. */
  profile?: string;
  /**
   * Other US Core profiles its resources may conform to instead (an Observation: vital signs, lab,
   * screening assessment), each resource naming its own in `meta.profile`.
   */
  otherProfiles?: string[];
  /** The permission that reads the records in Cairn's own API: a role that cannot read tasks cannot read Task. */
  permission: Permission;
  /** The table read, aliased `r`: its rows have tenant_id, id and updated_at. */
  table: keyof DB & string;
  /** Whether its rows are an instance's (most) or the tenant's (users). */
  instanceScoped: boolean;
  /** Conditions every read adds (not deleted). */
  where?: RawBuilder<SqlBool>[];
  /**
   * The patients a row is about, for the access log and a `patient/` token's compartment: the column
   * (`patient_id`; `id` for Patient itself), or where they are not one column (an appointment's
   * participants) a function of the row and the condition that a row is about a patient, or why
   * its rows carry no patient data.
   */
  patient:
    | { column: string }
    | { of: (row: never) => unknown[]; has: (patientId: string, tenantId: string) => RawBuilder<SqlBool> }
    | { none: string };
  /**
   * What its rows need besides `r.*`, composed into the same statement (an appointment's
   * participants as JSON), each naming the tenant as a parameter.
   */
  columns?: (tenantId: string) => AliasedRawBuilder<unknown, string>[];
  /** What the access log calls its records (PATIENT, TASK). */
  logAs: string;
  /**
   * The audit log's `entity_type` of its records' changes (TASK, CDT_RECORD): those rows are its
   * records' Provenance. None where its changes are logged as another record's (CareTeam: its patient's).
   */
  auditEntity?: string;
  /** The error a read of an id not there answers, as Cairn's own read does (TASK_NOT_FOUND). */
  notFound: ErrorCode;
  /** Its own search parameters; `_id` and `_lastUpdated` every resource has. */
  params: Record<string, FhirParam>;
  /** The column `_lastUpdated` reads: `updated_at` unless said (a chat message never changes: `created_at`). */
  updatedColumn?: string;
  /**
   * Types its resources link to that its area serves by a read route of its own, with no search
   * (a DocumentReference's files as `Binary/{id}`): the CapabilityStatement lists them, read only.
   */
  linkedReads?: string[];
  /** A row as the resource, elements without a value left out; `at`, where it is served. */
  toFhir(row: never, at?: FhirAt): Record<string, unknown>;
  /**
   * A resource whose mapping is the instance's formation (a CDT declared as an Observation): the
   * resource as a formation maps it, which every read uses in place of this declaration (whose
   * parameters the CapabilityStatement lists). Built once per formation (fhir/store.ts `formedOf`).
   */
  formed?: (formation: Formation) => FhirResource;
}

/**
 * Where a resource is served: the instance's FHIR base URL, for links to what Cairn serves
 * (`{base}/Binary/{id}`); links are relative to the base without it.
 */
export interface FhirAt {
  base: string;
}

/** The US Core version every profile served conforms to (the CapabilityStatement's `{profile}|{version}`). */
export const US_CORE_VERSION = '6.1.0';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);

/** A condition no row meets: a value that cannot name one (an `_id` that is not a uuid). */
export const nothing = sql<SqlBool>`false`;

/** The patients a resource's row is about (its column's, or its function's), for the access log. */
export function patientsOfRow(resource: FhirResource, row: Record<string, unknown>): unknown[] {
  const shown = resource.patient;
  return 'column' in shown ? [row[shown.column]] : 'of' in shown ? shown.of(row as never) : [];
}

/**
 * The condition that a resource's row (aliased `r`) is in a patient's compartment; null, a token
 * confined with no patient, matches nothing. A resource without patient data is not narrowed.
 */
export function inCompartment(resource: FhirResource, patientId: string | null, tenantId: string): RawBuilder<SqlBool> {
  const { patient } = resource;
  if ('none' in patient) return sql<SqlBool>`true`;
  if (patientId === null || !isUuid(patientId)) return nothing;
  if ('column' in patient) return sql<SqlBool>`${sql.ref(`r.${patient.column}`)} = ${patientId}`;
  return patient.has(patientId, tenantId);
}

export const invalidParam = (param: string, message: string) => validationError([{ path: `querystring.${param}`, message }]);

const column = (name: string) => sql.ref(`r.${name}`);

/**
 * FHIR has no empty arrays and no nulls: an element without a value is left out. A loop into one
 * new object (entries, flatMap and fromEntries made a tenth of a FHIR read's garbage).
 */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) return value.map(compact) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const element = compact((value as Record<string, unknown>)[key]);
    if (element === null || element === undefined || (Array.isArray(element) && element.length === 0)) continue;
    kept[key] = element;
  }
  return kept as T;
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

/** PostgreSQL takes no NUL in text, and no name holds a control character. */
const hasControl = (value: string) => [...value].some((c) => c.charCodeAt(0) < 0x20);

/**
 * A string parameter: the value starts any of the columns, in any case (an index on `lower(column)`
 * serves each). The pattern goes into the statement as a literal (Kysely quotes it), not as a
 * parameter: the server plans statements generically (`plan_cache_mode`, db/database.ts), and a
 * LIKE on a parameter can use no index, so a rare prefix would walk the whole table in id order.
 * On a literal the planner knows the prefix: the name index for a rare one, the id order for a
 * common one.
 */
export function stringParam(param: string, ...columns: string[]): FhirParam {
  return {
    type: 'string',
    where: (value) => {
      if (hasControl(value)) throw invalidParam(param, 'has a control character');
      const pattern = sql.lit(prefix(value));
      return sql<SqlBool>`(${sql.join(
        columns.map((name) => sql`lower(${column(name)}) LIKE ${pattern}`),
        sql` OR `,
      )})`;
    },
  };
}

/**
 * A token parameter over one column: `code` or `system|code`, the code mapped to Cairn's values
 * (`codes`: Cairn's value → FHIR's code). A code of the value set (`known`, by default the codes
 * mapped) that no value maps to matches nothing; any other is a 400 naming the codes.
 */
export function tokenParam(
  name: string,
  columnName: string,
  codes: Record<string, string>,
  known: readonly string[] = Object.values(codes),
): FhirParam {
  return {
    type: 'token',
    where: (token) => {
      const { code } = tokenOf(token);
      const cairn = Object.entries(codes)
        .filter(([, fhir]) => fhir === code)
        .map(([value]) => value);
      if (cairn.length > 0) return sql<SqlBool>`${column(columnName)} IN (${sql.join(cairn)})`;
      if (known.includes(code)) return nothing;
      throw invalidParam(name, `must be one of ${[...new Set(known)].join(', ')}`);
    },
  };
}

/**
 * A token every row has the same value of (every chat message is `completed`): its code (and its
 * system, when the value names one) matches every row, any other code none; given `known` (a
 * required binding's codes), a code outside them is a 400.
 */
export function fixedToken(name: string, coding: { system?: string; code: string }, known?: readonly string[]): FhirParam {
  return {
    type: 'token',
    where: (token) => {
      const { system, code } = tokenOf(token);
      if (known && !known.includes(code)) throw invalidParam(name, `must be one of ${known.join(', ')}`);
      const sameSystem = system === undefined || system === (coding.system ?? '');
      return sameSystem && code === coding.code ? sql<SqlBool>`true` : nothing;
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
    includes: {
      targets: [type],
      refersTo: (row: Record<string, unknown>) => {
        const id = row[columnName];
        return typeof id === 'string' ? [{ type, id }] : [];
      },
    },
  };
}

const PREFIXES = ['eq', 'ne', 'lt', 'gt', 'le', 'ge', 'sa', 'eb'] as const;
const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** A date search's value: the prefix, and the range its date covers (`2020` is every instant of 2020). */
interface DateRange {
  op: (typeof PREFIXES)[number];
  start: Date;
  end: Date;
}

/** A date parameter's value (`ge2020-01-01`, `2020-06`, an instant) as its range, or a 400 naming the parameter. */
function dateRangeOf(name: string, given: string): DateRange {
  const prefixed = PREFIXES.find((candidate) => given.startsWith(candidate));
  const op = prefixed ?? 'eq';
  const text = prefixed ? given.slice(2) : given;
  const match = DATE.exec(text);
  if (!match) throw invalidParam(name, 'must be a date: [prefix]YYYY, YYYY-MM, YYYY-MM-DD or an instant');
  const [, year, month, day] = match;
  const start = text.includes('T') ? new Date(text) : new Date(Date.UTC(Number(year), Number(month ?? 1) - 1, Number(day ?? 1)));
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
  return { op, start, end };
}

/**
 * A date parameter over a date or timestamp column: a prefix (`ge2020-01-01`), then a year, a
 * month, a day or an instant, each the range it covers (FHIR: `eq2020` is any day of 2020).
 */
export function dateParam(name: string, columnName: string, kind: 'date' | 'instant'): FhirParam {
  return { type: 'date', where: (given) => dateCondition(name, column(columnName), kind, given) };
}

/** A date parameter's value as a condition on an expression of a date or timestamp (a column, a JSON field cast). */
export function dateCondition(
  name: string,
  ref: RawBuilder<unknown> | ReturnType<typeof column>,
  kind: 'date' | 'instant',
  given: string,
) {
  const { op, start, end } = dateRangeOf(name, given);
  const at = (instant: Date) => (kind === 'date' ? instant.toISOString().slice(0, 10) : instant);
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
}

/**
 * A parameter over an element Cairn never holds (Task's `period`, an Organization's `address`, a
 * PractitionerRole's `specialty`): in R4 search.html a value matches resources holding the element
 * (`:missing` finds the others), so a good value matches none; a bad one is still a 400, as on any
 * parameter of its type.
 */
export function absentParam(name: string, type: FhirParam['type']): FhirParam {
  return {
    type,
    where: (given) => {
      checkValue(name, type, given);
      return nothing;
    },
  };
}

/** Throws the 400 a value of a parameter of `type` gets when it is malformed (a date out of range, a control character). */
export function checkValue(name: string, type: FhirParam['type'], given: string): void {
  if (type === 'date') dateRangeOf(name, given);
  else if (type === 'string' && hasControl(given)) throw invalidParam(name, 'has a control character');
}

/** The parameters every resource has. */
export const commonParams: Record<string, FhirParam> = {
  _id: { type: 'token', where: (value) => (isUuid(value) ? sql<SqlBool>`r.id = ${value}` : nothing) },
  _lastUpdated: dateParam('_lastUpdated', 'updated_at', 'instant'),
};

/** A resource's search parameters: the common ones (`_lastUpdated` on its own column), then its own. */
export function paramsOf(resource: FhirResource): Record<string, FhirParam> {
  const updated = resource.updatedColumn ?? 'updated_at';
  return { ...commonParams, _lastUpdated: dateParam('_lastUpdated', updated, 'instant'), ...resource.params };
}

/**
 * The user a record names (its author: the first of `columns` set) as a composed column `as`, when
 * the user is one Cairn serves as a Practitioner; null for an API client, which has no FHIR resource.
 */
export const practitionerColumn =
  (columns: string[], as: string) =>
  (tenantId: string): AliasedRawBuilder<unknown, string> =>
    sql`(SELECT u.id FROM users u WHERE u.tenant_id = ${tenantId} AND u.deleted_at IS NULL
         AND u.id = coalesce(${sql.join(columns.map(column))}))`.as(as);

/** A file as a composed column carries it (`filesColumn`). */
export interface FileJson {
  id: string;
  contentType: string;
  size: number;
  title: string;
  creation: string;
}

/** A record's files (owner kind `ownerKind`), oldest first, as a composed JSON column `as` (the files' owner index serves it). */
export const filesColumn =
  (ownerKind: string, as: string) =>
  (tenantId: string): AliasedRawBuilder<unknown, string> =>
    sql`(SELECT coalesce(json_agg(json_build_object('id', f.id, 'contentType', f.content_type, 'size', f.size,
          'title', f.original_name, 'creation', f.created_at) ORDER BY f.created_at, f.id), '[]')
         FROM files f WHERE f.tenant_id = ${tenantId} AND f.owner_kind = ${ownerKind} AND f.owner_id = r.id
           AND f.instance_id = r.instance_id)`.as(as);

/** A file as an Attachment; `url` where Cairn serves its bytes to FHIR clients (`Binary/{id}`). */
export const attachmentOf = (file: FileJson, url?: string) => ({
  contentType: file.contentType,
  url,
  size: Number(file.size),
  title: file.title,
  creation: new Date(file.creation).toISOString(),
});

/**
 * Who took part in a record (its sender, its receiver) by Cairn's kind of party: a user is a
 * Practitioner, a patient a Patient; anyone else (a contact, an API client, the care team) by
 * name only, as Cairn serves no resource of them.
 */
export function partyOf(kind: string | null, id: string | null, name: string | null) {
  if (kind === 'USER' && id) return reference('Practitioner', id);
  if (kind === 'PATIENT' && id) return reference('Patient', id);
  return name ? { display: name } : undefined;
}

/** FHIR's EventStatus (Communication.status, a required binding): every code a status parameter takes. */
export const eventStatuses = [
  'preparation',
  'in-progress',
  'not-done',
  'on-hold',
  'stopped',
  'completed',
  'entered-in-error',
  'unknown',
] as const;

/** Cairn's CodeSystem of the channels a Communication went by (chat, sms, email): its `category`. */
export const CHANNEL_SYSTEM = 'https://cairn.health/fhir/CodeSystem/communication-channel';
const PARTICIPATION_MODE = 'http://terminology.hl7.org/CodeSystem/v3-ParticipationMode';

/**
 * A Communication's channel, as every area serving one declares it: the category (Cairn's
 * channel code) and the medium (v3 ParticipationMode: SMSWRIT, EMAILWRIT, MSGWRIT), each element
 * and its search parameter, which matches all of the area's rows or none.
 */
export function communicationChannel(channel: { code: string; display: string }, medium: { code: string; display: string }) {
  return {
    elements: {
      category: [{ coding: [{ system: CHANNEL_SYSTEM, ...channel }] }],
      medium: [{ coding: [{ system: PARTICIPATION_MODE, ...medium }] }],
    },
    params: {
      category: fixedToken('category', { system: CHANNEL_SYSTEM, code: channel.code }),
      medium: fixedToken('medium', { system: PARTICIPATION_MODE, code: medium.code }),
    },
  };
}
