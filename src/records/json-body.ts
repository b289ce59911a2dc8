/**
 * The `jsonBody` of PDT and CDT records (001 generic CDT record; PROD-SHAPES "CDT record"): the
 * system fields in snake_case, then the type's custom fields (null when unset), with `id` the
 * record's id. Key order follows production.
 */

export interface RecordSystemColumns {
  id: string;
  external_guid: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
  source_type?: string | null;
  source_id?: string | null;
  source_name?: string | null;
}

export function jsonBody(
  row: RecordSystemColumns,
  fieldNames: readonly string[],
  values: Record<string, unknown>,
): Record<string, unknown> {
  const custom: Record<string, unknown> = {};
  // Fields of the type come first in their order; values kept from an older formation follow.
  for (const name of [...fieldNames, ...Object.keys(values).filter((key) => !fieldNames.includes(key))]) {
    custom[name] = values[name] ?? null;
  }
  return {
    external_guid: row.external_guid,
    created_at: row.created_at.toISOString(),
    source_type: row.source_type ?? null,
    external_id: row.external_id,
    created_by_name: row.created_by_name,
    created_by: row.created_by,
    updated_by_name: row.updated_by_name,
    updated_at: row.updated_at.toISOString(),
    updated_by: row.updated_by,
    ...custom,
    id: row.id,
    source_id: row.source_id ?? null,
    source_name: row.source_name ?? null,
  };
}

/**
 * prod: `fullValue` is the record's values joined by spaces ("<email> <first> <last> <phone>"),
 * which is their order by field name. Lists and objects are left out.
 */
export function fullValue(values: Record<string, unknown>): string {
  return Object.keys(values)
    .sort()
    .map((key) => values[key])
    .filter((value) => value !== null && value !== undefined && value !== '' && typeof value !== 'object')
    .map(String)
    .join(' ');
}
