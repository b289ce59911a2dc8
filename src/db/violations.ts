/**
 * What a constraint violation names, the same on every engine. PostgreSQL sends the constraint's
 * and the table's names as fields of the error; a Citus coordinator passes on its worker's error
 * without them, naming the shard's constraint and table in the message and detail instead
 * (`"idempotency_keys_pkey_126297"`, `table "patients_102008"`): the shard id is cut off, so
 * the names are the tables' own either way.
 */
export interface Violation {
  /** 23505 unique, 23503 foreign key, 23514 check. */
  code: string;
  constraint: string;
  /** The referenced table of a foreign key violation, when the detail names it. */
  table: string;
  detail: string;
}

const SHARD_SUFFIX = /_\d+$/;

export function violationOf(error: unknown): Violation | undefined {
  const { code, constraint, message, detail } = (error ?? {}) as Record<string, unknown>;
  if (typeof code !== 'string' || !code.startsWith('23')) return undefined;
  const fromCitus = typeof constraint !== 'string' || constraint === '';
  const named = fromCitus ? (/constraint "([^"]+)"/.exec(String(message ?? ''))?.[1] ?? '') : constraint;
  const table = /table "([^"]+)"/.exec(String(detail ?? ''))?.[1] ?? '';
  return {
    code,
    constraint: fromCitus ? named.replace(SHARD_SUFFIX, '') : named,
    table: fromCitus ? table.replace(SHARD_SUFFIX, '') : table,
    detail: String(detail ?? ''),
  };
}
