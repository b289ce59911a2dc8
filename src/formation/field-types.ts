import { isE164 } from '../wire/formats.ts';
import { isInstant, uuidPattern } from '../wire/schemas.ts';

/**
 * Value types a designer can give a custom field (patient attributes now; PDT and CDT fields
 * use the same list). The names follow the field types seen in production formations.
 */
export const fieldTypes = [
  'text',
  'textarea',
  'integer',
  'float',
  'boolean',
  'checkbox',
  'date',
  'datetime',
  'email',
  'phone',
  'select',
  'uuid',
  'object',
] as const;

export type FieldType = (typeof fieldTypes)[number];

export interface FieldDefinition {
  name: string;
  /** Formations may write types in upper case (`TEXT`). */
  type: FieldType | Uppercase<FieldType>;
  required?: boolean;
  /** Allowed values of a `select` field. */
  options?: string[];
  /** A `select` field that holds a list of options. */
  multiple?: boolean;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A real calendar day (YYYY-MM-DD, years 0001–9999): Date would read 2021-02-30 as March 2, so the
 * day must read back unchanged.
 */
export function isCalendarDay(value: string): boolean {
  if (!datePattern.test(value) || !isInstant(`${value}T00:00:00Z`)) return false;
  return new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
}

/** Returns why `value` does not fit `field`, or undefined when it does. `null` always fits here. */
export function fieldValueProblem(field: FieldDefinition, value: unknown): string | undefined {
  if (value === null) return undefined;
  const text = typeof value === 'string' ? value : undefined;
  switch (field.type.toLowerCase() as FieldType) {
    case 'text':
    case 'textarea':
      return text === undefined ? 'must be a string' : undefined;
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
    case 'checkbox':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'date':
      return text !== undefined && isCalendarDay(text) ? undefined : 'must be a date (YYYY-MM-DD)';
    case 'datetime':
      return text !== undefined && isInstant(text) ? undefined : 'must be an ISO 8601 date-time';
    case 'email':
      return text !== undefined && emailPattern.test(text) ? undefined : 'must be an email address';
    case 'phone':
      return text !== undefined && isE164(text) ? undefined : 'must be a valid E.164 phone number';
    case 'uuid':
      return text !== undefined && uuidPattern.test(text) ? undefined : 'must be a uuid';
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : 'must be an object';
    case 'select': {
      const options = field.options ?? [];
      const values = field.multiple ? value : [value];
      if (!Array.isArray(values)) return 'must be a list of options';
      const bad = values.find((item) => typeof item !== 'string' || !options.includes(item));
      return bad === undefined ? undefined : `must be one of ${options.join(', ')}`;
    }
  }
}

/** A value that counts as "not given" for a required field. */
export function isBlank(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}

/**
 * The values a PDT, CDT or dictionary record body sets: the type's fields only. Other keys are
 * ignored (DECISIONS §10: clients send back whole records they have read, whose values sit
 * under `jsonBody` or `values`, next to read-only keys).
 */
export function pickFieldValues(fields: readonly FieldDefinition[], body: Record<string, unknown>): Record<string, unknown> {
  const nested = [body.jsonBody, body.values].find(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  );
  const source = { ...(nested as Record<string, unknown> | undefined), ...body };
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(source, field.name)) picked[field.name] = source[field.name];
  return picked;
}

/**
 * Checks a record's values against its type's fields (PDT, CDT and dictionary records): every
 * key must be a field, every value must fit, and on create every required field is given.
 * With `partial` (PATCH), only the keys present are checked.
 */
export function recordValueProblems(
  fields: readonly FieldDefinition[],
  values: Record<string, unknown>,
  options: { partial: boolean; path: string },
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const byName = new Map(fields.map((field) => [field.name, field]));
  for (const [key, value] of Object.entries(values)) {
    const field = byName.get(key);
    if (!field) {
      problems.push({ path: `${options.path}.${key}`, message: 'is not a field of this type' });
      continue;
    }
    const problem = fieldValueProblem(field, value);
    if (problem) problems.push({ path: `${options.path}.${key}`, message: problem });
  }
  for (const field of fields) {
    if (!field.required) continue;
    const given = Object.hasOwn(values, field.name);
    if ((!options.partial || given) && isBlank(values[field.name])) {
      problems.push({ path: `${options.path}.${field.name}`, message: 'is required' });
    }
  }
  return problems;
}
