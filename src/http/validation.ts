import { registerAjvFormats } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { parsePhoneNumberWithError } from 'libphonenumber-js/max';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Format from 'typebox/format';

let formatsRegistered = false;

/** String formats used by the schemas, registered once per process. */
export function registerFormats(): void {
  if (formatsRegistered) return;
  formatsRegistered = true;
  registerAjvFormats();
  Format.Set('e164', isE164);
  Format.Set('timezone', isTimeZone);
}

/**
 * 000 data convention 3: E.164, and the national leading zero after the country code is wrong
 * (+44020... must be +4420...). The number must also be a valid number for its country.
 */
export function isE164(value: string): boolean {
  if (!/^\+[1-9]\d{1,14}$/.test(value)) return false;
  try {
    const phone = parsePhoneNumberWithError(value);
    return phone.isValid() && phone.number === value;
  } catch {
    return false;
  }
}

const knownZones = new Map<string, boolean>();

/** Any IANA zone name the runtime knows, including the legacy US/... links the API uses. */
export function isTimeZone(value: string): boolean {
  let known = knownZones.get(value);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      known = true;
    } catch {
      known = false;
    }
    knownZones.set(value, known);
  }
  return known;
}

type ObjectSchema = { type?: unknown; properties?: Record<string, { type?: unknown }> };

function arrayProperties(schema: TSchema): string[] {
  const properties = (schema as ObjectSchema).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'array')
    .map(([name]) => name);
}

/** 000 convention 5: multi-value query parameters are comma-separated; repeated keys also work. */
function splitCommaLists(value: unknown, listNames: string[]): unknown {
  if (listNames.length === 0 || typeof value !== 'object' || value === null) return value;
  const query = { ...(value as Record<string, unknown>) };
  for (const name of listNames) {
    const raw = query[name];
    if (raw === undefined) continue;
    const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((part) => String(part).split(','));
    query[name] = parts.map((part) => part.trim()).filter((part) => part !== '');
  }
  return query;
}

/**
 * TypeBox validation for every route. Bodies are checked as sent: `{"name": 5}` is a 400, not
 * "5". Query strings, path parameters and headers arrive as text, so they are converted to the
 * schema's types first; booleans read `true`, `True` and `TRUE` alike (DECISIONS §10) and
 * query defaults (page 0, size 20) are filled in.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  if (httpPart === 'body') {
    return (value) => (validator.Check(value) ? { value } : { error: validator.Errors(value) as never });
  }
  const listNames = httpPart === 'querystring' ? arrayProperties(schema) : [];
  return (value) => {
    const converted = validator.Default(validator.Convert(splitCommaLists(value, listNames)));
    return validator.Check(converted) ? { value: converted } : { error: validator.Errors(converted) as never };
  };
};
