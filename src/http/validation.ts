import type { FastifyInstance, FastifySchemaCompiler, preValidationHookHandler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

type ObjectSchema = { type?: unknown; properties?: Record<string, { type?: unknown }> };

function propertiesOfType(schema: TSchema, type: string): string[] {
  const properties = (schema as ObjectSchema).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === type)
    .map(([name]) => name);
}

const integerText = /^[+-]?\d+$/;
const numberText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * TypeBox's conversion reads `2.5` as the integer 2 and `0x10` as 16. A query value that is not
 * written as a plain number is put back as sent, so the check rejects it with a 400.
 */
function keepUnreadableNumbers(raw: unknown, converted: unknown, integers: string[], numbers: string[]): unknown {
  if (typeof raw !== 'object' || raw === null || typeof converted !== 'object' || converted === null) return converted;
  const sent = raw as Record<string, unknown>;
  const result = converted as Record<string, unknown>;
  for (const [names, pattern] of [
    [integers, integerText],
    [numbers, numberText],
  ] as const) {
    for (const name of names) {
      const value = sent[name];
      if (typeof value === 'string' && !pattern.test(value.trim())) result[name] = value;
    }
  }
  return result;
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
  const asSent = (value: unknown) => (validator.Check(value) ? { value } : { error: validator.Errors(value) as never });
  if (httpPart === 'body') return asSent;
  // Most routes' parameters are text only (ids, names, codes), which Convert and Default would
  // leave as they are; both walk the schema at every request (TypeBox's share of a read by id was
  // ~20 µs and 7 KB of garbage, measured 2026-12-04), so such schemas are checked as sent.
  if (!hasDefaults(schema) && isText(schema)) return asSent;
  const listNames = httpPart === 'querystring' ? propertiesOfType(schema, 'array') : [];
  const integers = propertiesOfType(schema, 'integer');
  const numbers = propertiesOfType(schema, 'number');
  return (value) => {
    const split = splitCommaLists(value, listNames);
    // Convert works in place, so the text as sent is kept aside first.
    const sent = typeof split === 'object' && split !== null ? { ...split } : split;
    const converted = validator.Default(keepUnreadableNumbers(sent, validator.Convert(split), integers, numbers));
    return validator.Check(converted) ? { value: converted } : { error: validator.Errors(converted) as never };
  };
};

type SchemaNode = { type?: unknown; const?: unknown; enum?: unknown; anyOf?: unknown; properties?: Record<string, unknown> };

/**
 * A value arriving as text that TypeBox's Convert would leave as it is: a string, a string
 * constant or enum, a union of those, or an object of such properties and nothing else. Anything
 * else (numbers, booleans, arrays, null, open objects) is not, so it is converted as before.
 */
function isText(schema: unknown, depth = 0): boolean {
  const node = schema as SchemaNode;
  if (node.type === 'object' && depth === 0) {
    const extra = Object.keys(node).filter((key) => !['type', 'properties', 'required', 'description', 'title'].includes(key));
    return extra.length === 0 && Object.values(node.properties ?? {}).every((property) => isText(property, depth + 1));
  }
  if (Array.isArray(node.anyOf)) return node.anyOf.length > 0 && node.anyOf.every((member) => isText(member, depth + 1));
  if (Array.isArray(node.enum)) return node.enum.every((value) => typeof value === 'string');
  if (node.const !== undefined) return typeof node.const === 'string';
  return node.type === 'string';
}

/** Whether a `default` appears anywhere in the schema (a property named "default" counts too: then Default runs, harmlessly). */
function hasDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefaults);
  if (typeof schema !== 'object' || schema === null) return false;
  return Object.entries(schema).some(([key, value]) => key === 'default' || hasDefaults(value));
}

/** A body schema no field of which is required: `{}` is a body it may take, and so is no body. */
export function isOptionalObject(schema: unknown): boolean {
  const { type, required } = (schema ?? {}) as { type?: unknown; required?: unknown };
  return type === 'object' && (!Array.isArray(required) || required.length === 0);
}

const absentAsEmpty: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {};
  done();
};

/**
 * A route whose body has no required field takes a request with no body (no Content-Type and no
 * bytes, or an empty JSON body) as `{}`: Fastify leaves such a body undefined, which the schema
 * would refuse as "must be object". An explicit `null` is still checked as sent. A route with a
 * required field still answers 400 for an absent body, and routes that read their own bodies
 * (request-bodies.ts) declare no body schema, so nothing changes for them.
 */
export function registerAbsentBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!isOptionalObject(route.schema?.body)) return;
    const own = route.preValidation ?? [];
    route.preValidation = [absentAsEmpty, ...(Array.isArray(own) ? own : [own])];
  });
}

/**
 * Bodies may hold free-form JSON (custom fields, assessments), which is later serialized and
 * cloned by recursive code that a deeply nested value would overflow. Nothing in the API nests
 * anywhere near this deep, so deeper bodies are refused up front.
 */
export const MAX_JSON_DEPTH = 64;

export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
