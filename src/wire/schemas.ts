import { utc } from '@date-fns/utc';
// The function's own module: the package's barrel costs seconds of start-up on Node 24 (it resolves
// date-fns' large exports map once per file it loads).
import { parseISO } from 'date-fns/parseISO';
import { type Static, type TSchema, type TUnsafe, Type } from 'typebox';

/** Building blocks shared by every area's schemas, so a uuid or a timestamp reads the same everywhere. */

export const Uuid = Type.String({ format: 'uuid' });
/** For ids that arrive outside a schema (a path segment whose meaning depends on a flag). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * A UTC instant, written YYYY-MM-DDTHH:mm:ss.SSSZ (DECISIONS §1). Handlers may return a Date:
 * the serializer writes it in that form. Input is read with `readInstant`.
 */
export const DateTime = Type.Unsafe<string | Date>(
  Type.String({
    format: 'date-time',
    description: 'Written as 2024-05-06T07:08:09.123Z; read in any ISO 8601 form, UTC when no offset is given',
  }),
);

/**
 * DECISIONS §1: inputs accept any valid ISO 8601 date-time (`2024-05-06T07:08`, `…+0530`,
 * `20240506T070809Z`, a bare date); one without an offset is UTC, never the server's zone.
 * Invalid text gives an invalid Date. (`DateTime` values are typed `string | Date` for replies.)
 */
export function readInstant(value: string | Date): Date {
  return value instanceof Date ? value : new Date(parseISO(value, { in: utc }).getTime());
}

/** Years 0001–9999: what PostgreSQL stores and DECISIONS §1's four-digit years can write (the first and last instants). */
export const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

export function isInstant(value: string): boolean {
  const time = readInstant(value).getTime();
  return time >= EARLIEST && time <= LATEST;
}
export const E164 = Type.String({ format: 'e164', description: 'E.164, e.g. +14155550123' });
export const Email = Type.String({ format: 'email', maxLength: 320 });
export const TimeZone = Type.String({ format: 'timezone', description: 'IANA time zone name' });

const primitiveTypes = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * A value or null. Primitives are written `type: [T, "null"]` rather than `anyOf`: the response
 * serializer must validate each `anyOf` branch at run time to pick one, which showed in profiles.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && primitiveTypes.has(type))
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}

/** A multi-value query parameter: `a,b` or repeated keys (000 convention 5). */
export function CsvList<T extends TSchema>(item: T, options: { description?: string; maxItems?: number } = {}) {
  return Type.Array(item, { ...options, 'x-comma-separated': true });
}

/** A free-form JSON object. */
export const JsonObject = Type.Record(Type.String(), Type.Unknown());

/** An empty-bodied 200, as deletes answer (DECISIONS §1): the handler calls `reply.send()`. */
export const EmptyBody = Type.Unsafe<void>(Type.Null({ description: 'Empty body' }));

export const TenantParams = Type.Object({ tenantName: Type.String() });
export const InstanceParams = Type.Object({ tenantName: Type.String(), instanceName: Type.String() });
/** Routes under `/patients/{patientId}/...`: a malformed id is a 400, an unknown one a 404. */
export const PatientParams = Type.Object({ tenantName: Type.String(), instanceName: Type.String(), patientId: Uuid });

/** A short, trimmed, non-empty text such as a name. */
export function Text(options: { maxLength?: number; minLength?: number; description?: string } = {}) {
  return Type.String({ minLength: options.minLength ?? 0, maxLength: options.maxLength ?? 255, ...options });
}
