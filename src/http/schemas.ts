import { type TSchema, Type } from 'typebox';

/** Building blocks shared by every area's schemas, so a uuid or a timestamp reads the same everywhere. */

export const Uuid = Type.String({ format: 'uuid' });
/** For ids that arrive outside a schema (a path segment whose meaning depends on a flag). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * A UTC instant, written YYYY-MM-DDTHH:mm:ss.SSSZ (DECISIONS §1). Handlers may return a Date:
 * the serializer writes it in that form.
 */
export const DateTime = Type.Unsafe<string | Date>(Type.String({ format: 'date-time' }));
export const E164 = Type.String({ format: 'e164', description: 'E.164, e.g. +14155550123' });
export const Email = Type.String({ format: 'email', maxLength: 320 });
export const TimeZone = Type.String({ format: 'timezone', description: 'IANA time zone name' });

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A multi-value query parameter: `a,b` or repeated keys (000 convention 5). */
export function CsvList<T extends TSchema>(item: T, options: { description?: string } = {}) {
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
