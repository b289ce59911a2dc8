import type { FieldDefinitionInput } from './schemas.ts';
import type { AddProblem } from './sections.ts';

/**
 * Checks every section makes at publish (names unique, fields well formed); each section's own
 * rules live with its declaration (formation/platform.ts, and the areas' `formation`).
 */

export function uniqueNames(items: { name: string }[], section: string, add: AddProblem) {
  uniqueBy(items, (item) => item.name, section, 'name', add);
}

export function uniqueBy<T>(items: T[], key: (item: T) => string, section: string, field: string, add: AddProblem) {
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const value = key(item);
    if (seen.has(value)) add(`${section}.${index}.${field}`, `"${value}" is used twice`);
    seen.add(value);
  }
}

/** System keys every CDT and PDT record's jsonBody carries; a custom field cannot take them. */
export const systemFieldNames = new Set([
  'id',
  'external_guid',
  'external_id',
  'created_at',
  'updated_at',
  'created_by',
  'created_by_name',
  'updated_by',
  'updated_by_name',
  'source_type',
  'source_id',
  'source_name',
]);

export function fieldProblems(fields: FieldDefinitionInput[], path: string, add: AddProblem) {
  uniqueNames(fields, path, add);
  for (const [index, field] of fields.entries()) {
    if (systemFieldNames.has(field.name)) add(`${path}.${index}.name`, `"${field.name}" is a system field`);
    if (field.type.toLowerCase() === 'select' && !(field.options && field.options.length > 0)) {
      add(`${path}.${index}.options`, 'a select field needs options');
    }
  }
}
