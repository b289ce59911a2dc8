import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: the subset TypeBox
 * writes (object, array, string with length/pattern/format/enum/const, integer and number with
 * bounds, boolean, null, anyOf/oneOf/allOf and type lists such as ["string", "null"]).
 *
 * `validArbitrary` aims at values the schema accepts, `invalidArbitrary` at values it refuses
 * (wrong types, out of range, bad formats, missing required keys, garbage and huge strings,
 * nested junk). Neither is exact, and the route checks only need them to be likely.
 */

export type JsonSchema = Record<string, any>;

export interface SchemaArbitraryOptions {
  /** Values for `format: uuid` (known ids mixed with random ones reach deeper than random ones). */
  uuid?: fc.Arbitrary<string>;
  /** Property names to try in open objects (e.g. the field names of the formation's types). */
  keys?: string[];
  /** Plain strings to try besides random ones (e.g. the formation's names). */
  words?: string[];
}

/** Valid E.164 numbers (libphonenumber checks the number is valid for its country). */
const phones = ['+14155550123', '+14155550199', '+442079460000', '+61291234567', '+4930123456', '+33142685300'];
const zones = ['UTC', 'US/Eastern', 'US/Pacific', 'Europe/London', 'Asia/Singapore', 'Australia/Sydney', 'America/New_York'];

/** Strings that break parsers, SQL, formats and encodings. */
const nastyStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  "'; DROP TABLE patients; --",
  '%',
  '%00',
  '../../etc/passwd',
  '{"$ne": null}',
  'null',
  'true',
  '-1',
  '1e309',
  'NaN',
  '٣',
  '😀',
  'ⓐⓑⓒ',
  '\t\n\r',
  '2024-02-30T25:61:61Z',
  '0000-00-00',
  '00000000-0000-0000-0000-00000000000g',
  'not-a-uuid',
];

/** ISO 8601 forms at the edges: expanded and zero years, offsets across a year's end, week and ordinal dates. */
const edgeInstants = [
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59-14:00',
  '0001-01-01T00:00:00+14:00',
  '0000-01-01T00:00:00Z',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '1970-01-01',
  '20240506T070809Z',
  '2024-05-06T07:08',
  '2024-05-06T07:08:09,5+0530',
  '2024-W19-1',
  '2024-127',
];

const huge = (n: number) => 'x'.repeat(n);

function typesOf(schema: JsonSchema): string[] | undefined {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type as string[];
  return undefined;
}

function mergeAll(schema: JsonSchema): JsonSchema {
  const { allOf, ...rest } = schema;
  let merged: JsonSchema = rest;
  for (const part of allOf as JsonSchema[]) {
    const next = part.allOf ? mergeAll(part) : part;
    merged = {
      ...merged,
      ...next,
      properties: { ...(merged.properties ?? {}), ...(next.properties ?? {}) },
      required: [...(merged.required ?? []), ...(next.required ?? [])],
    };
  }
  if (Object.keys(merged.properties).length === 0) delete merged.properties;
  return merged;
}

function isPlainObjectSchema(schema: JsonSchema): boolean {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
}

/** A schema that accepts anything (`{}`, `true`, or only annotations). */
function isAnything(schema: JsonSchema | boolean): boolean {
  if (schema === true) return true;
  if (!isPlainObjectSchema(schema as JsonSchema)) return false;
  const s = schema as JsonSchema;
  return (
    s.type === undefined &&
    s.anyOf === undefined &&
    s.oneOf === undefined &&
    s.allOf === undefined &&
    s.enum === undefined &&
    s.const === undefined &&
    s.properties === undefined &&
    s.items === undefined
  );
}

export class SchemaArbitraries {
  private readonly uuid: fc.Arbitrary<string>;
  private readonly keys: fc.Arbitrary<string>;
  private readonly words: string[];

  constructor(options: SchemaArbitraryOptions = {}) {
    this.uuid = options.uuid ?? fc.uuid();
    const keys = options.keys ?? [];
    this.keys =
      keys.length > 0
        ? fc.oneof({ arbitrary: fc.constantFrom(...keys), weight: 3 }, { arbitrary: fc.string({ maxLength: 12 }), weight: 1 })
        : fc.string({ maxLength: 12 });
    this.words = options.words ?? [];
  }

  /** Any JSON value, small. */
  anything(): fc.Arbitrary<unknown> {
    return fc.jsonValue({ maxDepth: 2 });
  }

  valid(schema: JsonSchema | boolean | undefined, depth = 0): fc.Arbitrary<unknown> {
    if (schema === undefined || schema === true || isAnything(schema as JsonSchema)) return this.anything();
    if (schema === false) return fc.constant(undefined);
    const s = schema as JsonSchema;
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    if (Array.isArray(s.allOf)) return this.valid(mergeAll(s), depth);
    const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
    if (branches) {
      const { anyOf: _a, oneOf: _o, ...outer } = s;
      return fc.oneof(...branches.map((branch) => this.valid({ ...outer, ...branch }, depth)));
    }
    const types = typesOf(s);
    if (types && types.length > 1) return fc.oneof(...types.map((type) => this.valid({ ...s, type }, depth)));
    const type = types?.[0] ?? (s.properties ? 'object' : s.items ? 'array' : undefined);
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
      case 'number':
        return this.validNumber(s, type);
      case 'string':
        return this.validString(s);
      case 'array': {
        const min = s.minItems ?? 0;
        const max = Math.min(s.maxItems ?? min + 3, min + 3);
        return fc.array(this.valid(s.items, depth + 1), { minLength: min, maxLength: depth > 4 ? min : max });
      }
      case 'object':
        return this.validObject(s, depth);
      default:
        return this.anything();
    }
  }

  private validNumber(s: JsonSchema, type: string): fc.Arbitrary<number> {
    const lower = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : undefined);
    const upper = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : undefined);
    if (type === 'integer') {
      const min = lower ?? -1_000_000;
      const max = upper ?? Math.max(min, 1_000_000);
      const edges = [min, max, ...(min <= 0 && max >= 0 ? [0] : [])];
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(...edges));
    }
    return fc.double({ min: lower ?? -1e9, max: upper ?? 1e9, noNaN: true, noDefaultInfinity: true });
  }

  private validString(s: JsonSchema): fc.Arbitrary<string> {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Math.max(min, 40);
    const fits = (value: string) => value.length >= min && value.length <= max;
    switch (s.format) {
      case 'uuid':
        return this.uuid;
      case 'email':
        return fc.emailAddress().filter(fits);
      case 'date-time':
        return fc.oneof(
          { arbitrary: fc.constantFrom(...edgeInstants), weight: 1 },
          {
            arbitrary: fc
              .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
              .chain((date) =>
                fc.constantFrom(date.toISOString(), date.toISOString().slice(0, 19), date.toISOString().replace('Z', '+05:30')),
              ),
            weight: 3,
          },
        );
      case 'date':
        return fc
          .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
          .map((date) => date.toISOString().slice(0, 10));
      case 'e164':
        return fc.constantFrom(...phones);
      case 'timezone':
        return fc.constantFrom(...zones);
      case 'binary':
        return fc.string({ maxLength: 20 });
    }
    if (typeof s.pattern === 'string') {
      try {
        return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
      } catch {
        // A pattern fast-check cannot invert: plain strings below.
      }
    }
    const upper = Math.min(max, min + 30);
    const words = this.words.filter(fits);
    const plain = fc.oneof(
      fc.string({ minLength: min, maxLength: upper }),
      fc.string({ minLength: min, maxLength: upper, unit: 'grapheme' }),
      fc.string({ minLength: min, maxLength: upper, unit: 'binary' }),
    );
    return words.length > 0 ? fc.oneof(plain, fc.constantFrom(...words)) : plain;
  }

  private validObject(s: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set<string>((s.required ?? []) as string[]);
    const names = Object.keys(properties);
    const open = s.additionalProperties !== false && s.additionalProperties !== undefined;
    const declared =
      names.length === 0
        ? fc.constant({} as Record<string, unknown>)
        : fc.record(Object.fromEntries(names.map((name) => [name, this.valid(properties[name], depth + 1)])), {
            requiredKeys: names.filter((name) => required.has(name)),
          });
    // `{type: object}` with nothing declared, or additionalProperties given: a free-form object.
    if (!open && names.length > 0) return declared as fc.Arbitrary<Record<string, unknown>>;
    const extra = fc.dictionary(
      this.keys,
      isAnything(s.additionalProperties ?? true) ? this.anything() : this.valid(s.additionalProperties, depth + 1),
      { maxKeys: depth > 3 ? 1 : 5 },
    );
    return fc.tuple(declared, extra).map(([known, more]) => ({ ...more, ...known }));
  }

  invalid(schema: JsonSchema | boolean | undefined, depth = 0): fc.Arbitrary<unknown> {
    if (schema === undefined || schema === true || isAnything(schema as JsonSchema)) return this.junk();
    const s = schema as JsonSchema;
    if (Array.isArray(s.allOf)) return this.invalid(mergeAll(s), depth);
    const candidates: fc.Arbitrary<unknown>[] = [this.wrongType(s), this.junk()];
    if (s.const !== undefined || Array.isArray(s.enum)) {
      const options = (s.enum ?? [s.const]) as unknown[];
      const strings = options.filter((o): o is string => typeof o === 'string');
      candidates.push(
        fc.constantFrom('NOT_AN_OPTION', ...strings.map((o) => o.toLowerCase()), ...strings.map((o) => ` ${o}`), 7),
      );
      return fc.oneof(...candidates);
    }
    const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
    if (branches) {
      // Invalid for one branch is often valid for another; the junk and wrong types above stay.
      candidates.push(...branches.map((branch) => this.invalid(branch, depth + 1)));
      return fc.oneof(...candidates);
    }
    const types = typesOf(s) ?? (s.properties ? ['object'] : s.items ? ['array'] : []);
    for (const type of types) {
      const one = { ...s, type };
      if (type === 'string') candidates.push(this.invalidString(one));
      if (type === 'integer' || type === 'number') candidates.push(this.invalidNumber(one, type));
      if (type === 'array') candidates.push(this.invalidArray(one, depth));
      if (type === 'object') candidates.push(this.invalidObject(one, depth));
    }
    return fc.oneof(...candidates);
  }

  /** A value of a JSON type the schema does not list. */
  private wrongType(s: JsonSchema): fc.Arbitrary<unknown> {
    const types = new Set(typesOf(s) ?? []);
    const pool: unknown[] = [];
    if (!types.has('string')) pool.push('text', '', '12', 'true');
    if (!types.has('integer') && !types.has('number')) pool.push(0, -1, 12.5, 1e21);
    if (!types.has('boolean')) pool.push(true, false);
    if (!types.has('null')) pool.push(null);
    if (!types.has('array')) pool.push([], [1, 'a']);
    if (!types.has('object')) pool.push({}, { id: 1 });
    return pool.length > 0 ? fc.constantFrom(...pool) : this.junk();
  }

  /** Garbage: nasty strings, huge strings, deep nesting, random JSON. */
  junk(): fc.Arbitrary<unknown> {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...nastyStrings), weight: 3 },
      { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
      { arbitrary: fc.constantFrom(huge(300), huge(70_000)), weight: 1 },
      { arbitrary: fc.integer({ min: 2, max: 90 }).map(nest), weight: 1 },
      { arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e308, -0, 0.1), weight: 1 },
    );
  }

  private invalidString(s: JsonSchema): fc.Arbitrary<unknown> {
    const pool: fc.Arbitrary<unknown>[] = [fc.constantFrom(...nastyStrings)];
    if (typeof s.maxLength === 'number') pool.push(fc.constant(huge(s.maxLength + 1)));
    else pool.push(fc.constant(huge(70_000)));
    if (typeof s.minLength === 'number' && s.minLength > 0) pool.push(fc.constant(huge(s.minLength - 1)));
    if (s.format || s.pattern) pool.push(fc.string({ maxLength: 20, unit: 'binary' }));
    if (s.format === 'date-time' || s.format === 'date')
      pool.push(fc.constantFrom('2024-13-01', '2024-02-30', '31/12/2024', '0'));
    if (s.format === 'e164') pool.push(fc.constantFrom('+4402079460000', '02079460000', '+1', '+999999999999999'));
    if (s.format === 'uuid')
      pool.push(
        this.uuid.map((id) => `${id}x`),
        this.uuid.map((id) => id.toUpperCase()),
      );
    return fc.oneof(...pool);
  }

  private invalidNumber(s: JsonSchema, type: string): fc.Arbitrary<unknown> {
    const pool: unknown[] = ['1', 'one', 2 ** 53, -(2 ** 53), 1e300];
    if (typeof s.minimum === 'number') pool.push(s.minimum - 1, s.minimum - 0.5);
    if (typeof s.maximum === 'number') pool.push(s.maximum + 1, s.maximum + 0.5);
    if (type === 'integer') pool.push(1.5, -0.25, 2 ** 31, -(2 ** 31) - 1, 2 ** 63);
    return fc.constantFrom(...pool);
  }

  private invalidArray(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const pool: fc.Arbitrary<unknown>[] = [
      fc.array(this.invalid(s.items, depth + 1), { minLength: 1, maxLength: 3 }),
      fc.constant({ 0: 'not', 1: 'a list' }),
    ];
    if (typeof s.maxItems === 'number' && s.maxItems <= 1000) {
      pool.push(this.valid(s.items, depth + 1).map((item) => Array.from({ length: s.maxItems + 1 }, () => item)));
    }
    if (typeof s.minItems === 'number' && s.minItems > 0) pool.push(fc.constant([]));
    return fc.oneof(...pool);
  }

  private invalidObject(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
    const names = Object.keys(properties);
    const required = ((s.required ?? []) as string[]).filter((name) => names.includes(name) || !s.properties);
    const base = this.valid(s, depth + 1) as fc.Arbitrary<Record<string, unknown>>;
    const pool: fc.Arbitrary<unknown>[] = [
      // Free-form values: junk under known and random keys.
      fc.dictionary(this.keys, this.junk(), { minKeys: 1, maxKeys: 4 }),
    ];
    if (required.length > 0) {
      pool.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([value, name]) => {
          const { [name]: _dropped, ...rest } = value;
          return rest;
        }),
      );
    }
    if (names.length > 0) {
      pool.push(
        fc.constantFrom(...names).chain((name) =>
          fc.tuple(base, fc.constant(name), this.invalid(properties[name], depth + 1)).map(([value, key, bad]) => ({
            ...value,
            [key]: bad,
          })),
        ),
      );
    }
    if (s.additionalProperties && s.additionalProperties !== true && !isAnything(s.additionalProperties)) {
      pool.push(fc.dictionary(this.keys, this.invalid(s.additionalProperties, depth + 1), { minKeys: 1, maxKeys: 3 }));
    }
    return fc.oneof(...pool);
  }
}

/**
 * A few values at the edges of what a leaf schema takes (strings, numbers, formats), some just
 * inside and some just outside: for a deterministic sweep beside the random cases.
 */
export function edgeValues(schema: JsonSchema): unknown[] {
  const values: unknown[] = [];
  const types = typesOf(schema) ?? [];
  for (const branch of (schema.anyOf ?? schema.oneOf ?? []) as JsonSchema[]) values.push(...edgeValues(branch));
  if (types.includes('string')) {
    switch (schema.format) {
      case 'date-time':
        values.push(...edgeInstants);
        break;
      case 'date':
        values.push('0000-01-01', '9999-12-31', '2024-02-29', '2023-02-29');
        break;
      case 'uuid':
        values.push('00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF');
        break;
      case 'email':
        values.push(`${'a'.repeat(64)}@${'b'.repeat(63)}.example`, 'a@b');
        break;
      case 'e164':
        values.push('+999999999999999', '+10000000000');
        break;
      default:
        if (typeof schema.maxLength === 'number' && !schema.pattern)
          values.push(huge(schema.maxLength), huge(schema.maxLength + 1));
        values.push('\u0000');
    }
  }
  if (types.includes('integer') || types.includes('number')) {
    if (typeof schema.minimum === 'number') values.push(schema.minimum, schema.minimum - 1);
    if (typeof schema.maximum === 'number') values.push(schema.maximum, schema.maximum + 1);
    values.push(2 ** 31, 2 ** 63, -(2 ** 63), 1e308);
  }
  return [...new Set(values)];
}

/** `n` levels of nested objects and arrays: the JSON depth limit and recursive code. */
function nest(n: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < n; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}
