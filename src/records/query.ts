import type { FieldDefinition, FieldType } from '../formation/field-types.ts';
import { type FieldError, validationError } from '../wire/errors.ts';

/** A record list's `fields` and `filters` query parameters, read against the type's fields (the CDT list's today). */

/** `fields`: the custom fields jsonBody shows; undefined (all) when absent or empty. An unknown name is a 400. */
export function selectedFields(fields: readonly FieldDefinition[], requested: string[] | undefined): string[] | undefined {
  if (!requested || requested.length === 0) return undefined;
  const names = new Set(fields.map((field) => field.name));
  const unknown = requested.filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw validationError(unknown.map((name) => ({ path: 'query.fields', message: `"${name}" is not a field of this type` })));
  }
  return [...new Set(requested)];
}

const integerText = /^[+-]?\d+$/;
const numberText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A filter's text as the value the field stores, or the reason it cannot be one. */
function filterValue(field: FieldDefinition, text: string): { value: unknown } | { problem: string } {
  switch (field.type.toLowerCase() as FieldType) {
    case 'integer':
      return integerText.test(text) ? { value: Number(text) } : { problem: 'must be an integer' };
    case 'float':
      return numberText.test(text) ? { value: Number(text) } : { problem: 'must be a number' };
    case 'boolean':
    case 'checkbox':
      return /^(true|false)$/i.test(text) ? { value: text.toLowerCase() === 'true' } : { problem: 'must be true or false' };
    case 'object':
      return { problem: 'an object field cannot be filtered on' };
    case 'select':
      // A multiple select holds a list: the filter matches records whose list contains the value.
      return { value: field.multiple ? [text] : text };
    default:
      return { value: text };
  }
}

/**
 * `filters`: `field:value` conditions, all of which must hold. Each becomes an object the
 * record's values must contain (`values @> {...}`), which the GIN index serves.
 */
export function filterConditions(fields: readonly FieldDefinition[], filters: string[]): Record<string, unknown>[] {
  const byName = new Map(fields.map((field) => [field.name, field]));
  const problems: FieldError[] = [];
  const conditions: Record<string, unknown>[] = [];
  for (const filter of filters) {
    const at = filter.indexOf(':');
    const field = at > 0 ? byName.get(filter.slice(0, at)) : undefined;
    if (at <= 0) {
      problems.push({ path: 'query.filters', message: `"${filter}" is not <field>:<value>` });
    } else if (!field) {
      problems.push({ path: 'query.filters', message: `"${filter.slice(0, at)}" is not a field of this type` });
    } else {
      const read = filterValue(field, filter.slice(at + 1));
      if ('problem' in read) problems.push({ path: 'query.filters', message: `${field.name}: ${read.problem}` });
      else conditions.push({ [field.name]: read.value });
    }
  }
  if (problems.length > 0) throw validationError(problems);
  return conditions;
}
