import { type ExpressionBuilder, type ExpressionWrapper, type SqlBool, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { validationError } from '../../wire/errors.ts';
import { GENDERS, IDENTIFIER_COLUMNS } from './patient.ts';

/**
 * Patient search as FHIR R4 and US Core 5.0.1 define it: `_id`, `identifier`, `name`, `family`,
 * `given`, `birthdate`, `gender`, `_lastUpdated`, alone or together (a parameter repeated is AND,
 * a comma within one is OR), `_count`, `_summary=count`. A parameter Cairn does not serve is
 * ignored, as FHIR lets a server do, and left out of the Bundle's `self` link, which lists what
 * was applied. Strings match case-insensitively at the start of the name part, as FHIR's string
 * search does; each is served by an index (migration 0030).
 */

type Where = ExpressionWrapper<DB, 'patients', SqlBool>;
type Builder = ExpressionBuilder<DB, 'patients'>;

export const SEARCH_PARAMS = ['_id', 'identifier', 'name', 'family', 'given', 'birthdate', 'gender', '_lastUpdated'] as const;
type SearchParam = (typeof SEARCH_PARAMS)[number];

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 1000;

export interface PatientSearch {
  /** The parameters applied, as given, for the `self` link. */
  applied: [string, string][];
  where: ((eb: Builder) => Where)[];
  count: number;
  /** `_summary=count`: the total only. */
  summaryCount: boolean;
  /** The id after which the page starts (`_cursor`, from a `next` link). */
  after: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A condition no patient meets: a value that cannot name one (an `_id` that is not a uuid). */
const nothing = (eb: Builder): Where => eb.lit(false) as unknown as Where;

const invalid = (param: string, message: string) => validationError([{ path: `querystring.${param}`, message }]);

/** The query's values of a parameter, repeated or not. */
function valuesOf(query: Record<string, unknown>, name: string): string[] {
  const value = query[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

export function parsePatientSearch(query: Record<string, unknown>): PatientSearch {
  const search: PatientSearch = { applied: [], where: [], count: DEFAULT_COUNT, summaryCount: false, after: undefined };
  for (const param of SEARCH_PARAMS) {
    for (const value of valuesOf(query, param)) {
      search.where.push(condition(param, value));
      search.applied.push([param, value]);
    }
  }
  const [count] = valuesOf(query, '_count');
  if (count !== undefined) {
    const parsed = Number(count);
    if (!Number.isInteger(parsed) || parsed < 0) throw invalid('_count', 'must be a whole number');
    search.count = Math.min(parsed, MAX_COUNT);
    search.applied.push(['_count', String(search.count)]);
  }
  const [summary] = valuesOf(query, '_summary');
  if (summary === 'count') {
    search.summaryCount = true;
    search.applied.push(['_summary', 'count']);
  } else if (summary !== undefined && summary !== 'false') throw invalid('_summary', 'only count is served');
  const [cursor] = valuesOf(query, '_cursor');
  if (cursor !== undefined) {
    if (!UUID.test(cursor)) throw invalid('_cursor', 'is not a cursor this server gave');
    search.after = cursor;
  }
  return search;
}

/** One parameter's value as a condition; a comma within it is OR. */
function condition(param: SearchParam, value: string): (eb: Builder) => Where {
  const alternatives = value.split(',').map((part) => part.trim());
  if (alternatives.some((part) => part === '')) throw invalid(param, 'has an empty value');
  const each = alternatives.map((part) => one(param, part));
  return (eb) => eb.or(each.map((make) => make(eb)));
}

/** `x%` for a case-insensitive starts-with, LIKE's own characters escaped. */
const prefix = (value: string) => `${value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function one(param: SearchParam, value: string): (eb: Builder) => Where {
  switch (param) {
    case '_id':
      if (!UUID.test(value)) return nothing;
      return (eb) => eb('id', '=', value);
    case 'identifier':
      return identifier(value);
    case 'family':
      return (eb) => eb(sql`lower(last_name)`, 'like', prefix(value));
    case 'given':
      return (eb) =>
        eb.or([eb(sql`lower(first_name)`, 'like', prefix(value)), eb(sql`lower(middle_name)`, 'like', prefix(value))]);
    case 'name':
      return (eb) =>
        eb.or([
          eb(sql`lower(last_name)`, 'like', prefix(value)),
          eb(sql`lower(first_name)`, 'like', prefix(value)),
          eb(sql`lower(middle_name)`, 'like', prefix(value)),
        ]);
    case 'gender': {
      const cairn = Object.entries(GENDERS).find(([, fhir]) => fhir === value)?.[0];
      if (!cairn) throw invalid('gender', 'must be male, female, other or unknown');
      // A patient with no gender is shown as unknown, so found as unknown.
      return cairn === 'UNKNOWN'
        ? (eb) => eb.or([eb('gender', '=', cairn), eb('gender', 'is', null)])
        : (eb) => eb('gender', '=', cairn);
    }
    case 'birthdate':
      return dateCondition('birthdate', sql.ref('birth_date'), value, 'date');
    case '_lastUpdated':
      return dateCondition('_lastUpdated', sql.ref('updated_at'), value, 'instant');
  }
}

/** `system|value`, `|value` (no system) or `value` (any of Cairn's keys). */
function identifier(token: string): (eb: Builder) => Where {
  const bar = token.indexOf('|');
  const system = bar >= 0 ? token.slice(0, bar) : undefined;
  const value = bar >= 0 ? token.slice(bar + 1) : token;
  if (system !== undefined && system !== '' && !(system in IDENTIFIER_COLUMNS)) {
    // A system Cairn does not issue names nothing here.
    return nothing;
  }
  const columns = system ? [IDENTIFIER_COLUMNS[system as keyof typeof IDENTIFIER_COLUMNS]] : Object.values(IDENTIFIER_COLUMNS);
  // uuid columns compare only with a uuid.
  const usable = columns.filter((column) => UUID.test(value) || (column !== 'id' && column !== 'external_guid'));
  return (eb) => (usable.length === 0 ? nothing(eb) : eb.or(usable.map((column) => eb(sql.ref(column), '=', value))));
}

const PREFIXES = ['eq', 'ne', 'lt', 'gt', 'le', 'ge', 'sa', 'eb'] as const;
const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * A date parameter: a prefix (`ge2020-01-01`), then a year, a month, a day or an instant, each
 * the range it covers (FHIR: `eq2020` is any day of 2020).
 */
function dateCondition(param: string, column: ReturnType<typeof sql.ref>, given: string, kind: 'date' | 'instant') {
  const prefixed = PREFIXES.find((candidate) => given.startsWith(candidate));
  const op = prefixed ?? 'eq';
  const text = prefixed ? given.slice(2) : given;
  const match = DATE.exec(text);
  if (!match) throw invalid(param, 'must be a date: [prefix]YYYY, YYYY-MM, YYYY-MM-DD or an instant');
  const [, year, month, day] = match;
  const start = text.includes('T') ? new Date(text) : new Date(Date.UTC(Number(year), Number(month ?? 1) - 1, Number(day ?? 1)));
  if (Number.isNaN(start.getTime())) throw invalid(param, 'is not a date');
  const end = text.includes('T')
    ? new Date(start.getTime() + 1)
    : new Date(
        Date.UTC(
          Number(year) + (month ? 0 : 1),
          Number(month ?? 1) - 1 + (month && !day ? 1 : 0),
          Number(day ?? 1) + (day ? 1 : 0),
        ),
      );
  const value = (at: Date) => (kind === 'date' ? at.toISOString().slice(0, 10) : at);
  return (eb: Builder): Where => {
    switch (op) {
      case 'eq':
        return eb.and([eb(column, '>=', value(start)), eb(column, '<', value(end))]);
      case 'ne':
        return eb.or([eb(column, '<', value(start)), eb(column, '>=', value(end))]);
      case 'lt':
      case 'eb':
        return eb(column, '<', value(start));
      case 'le':
        return eb(column, '<', value(end));
      case 'gt':
      case 'sa':
        return eb(column, '>=', value(end));
      case 'ge':
        return eb(column, '>=', value(start));
    }
  };
}
