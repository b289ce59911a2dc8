import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, type TestContext, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { applyFormation } from '../modules/formation/operations.ts';
import { createTestTenant, startApp, type TestTenant } from '../test/harness.ts';
import { fixtureParam, fullFormation, seedFixtures, tenantSnapshot } from '../test/route-fixtures.ts';
import { routerPlanProblems } from '../test/router-plans.ts';
import { edgeValues, type JsonSchema, SchemaArbitraries } from '../test/schema-arbitraries.ts';
import { captureStatements, stopCapture } from '../test/statements.ts';
import { isE164, isTimeZone } from '../wire/formats.ts';
import { systemContext } from './context.ts';

/**
 * Route checks generated from the access table and the OpenAPI document: every operation under
 * `/{tenantName}/` gets them the day it is added, with nobody writing its cases.
 *
 *  - authentication: no token → 401 NOT_VALID_JSON_WEB_TOKEN, an expired one → 401 TOKEN_EXPIRED;
 *  - tenancy and permissions: another tenant's token → 403, a token without the permission → 403
 *    ACCESS_DENIED;
 *  - another tenant's ids on the caller's own path (path, query, body) → 404 or 400, and that
 *    tenant's data unchanged (a snapshot of all its rows before and after);
 *  - the edge values of every documented query parameter and body field (dates at the ends of
 *    the calendar, lengths at their limits, extreme numbers), and a seeded fuzz of each operation
 *    from its schemas (valid and invalid path values, queries and bodies): no 5xx, every answer
 *    documented (status, content type, body schema), and none holding the other tenant's data.
 *
 * FUZZ_RUNS (cases per operation, default 5) and FUZZ_SEED (fixed by default; `random` explores)
 * make a longer or a replayed run;
 * FUZZ_ONLY (a substring of `METHOD /path`) and FUZZ_PATH narrow a replay to one operation's case;
 * FUZZ_STATS=1 lists the statuses each operation answered. For example:
 *   FUZZ_SEED=random FUZZ_RUNS=300 npm test -- route-checks
 *   FUZZ_SEED=123 FUZZ_RUNS=300 FUZZ_ONLY='POST /{tenantName}/{instanceName}/tasks' FUZZ_PATH=42 npm test -- route-checks
 */

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 5);
// A fixed seed unless asked for a random one: a run that fails once in CI must fail the same way on
// a laptop. Explore with FUZZ_SEED=random and a larger FUZZ_RUNS; fix what it finds, then replay it.
const FUZZ_SEED =
  process.env.FUZZ_SEED === 'random'
    ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
    : Number(process.env.FUZZ_SEED ?? 1694124028);
if (!Number.isInteger(FUZZ_RUNS) || FUZZ_RUNS < 1 || !Number.isInteger(FUZZ_SEED)) {
  throw new Error(
    `FUZZ_RUNS must be a positive integer and FUZZ_SEED an integer (got ${process.env.FUZZ_RUNS}, ${process.env.FUZZ_SEED})`,
  );
}
const FUZZ_ONLY = process.env.FUZZ_ONLY;
const FUZZ_PATH = process.env.FUZZ_PATH;

/**
 * KNOWN FAILURES: bugs these checks found that need a change in a file outside the areas this
 * test's author could edit. Each is reported (not failed) while listed; a deterministic check
 * fails when a listed bug no longer shows, so the list is emptied as the fixes land.
 */
interface KnownFailure {
  check: 'auth' | 'access' | 'cross-path' | 'cross-input' | 'edges' | 'fuzz';
  /** `METHOD /path` of the operation, or '*' for any. */
  operation: string;
  /** Matched against the problem's message. */
  pattern: RegExp;
  reason: string;
}
const knownFailures: KnownFailure[] = [];

// ---------------------------------------------------------------------------------------------
// The app, two tenants with one of every record, and the OpenAPI document.

const app = await startApp();
/** Every statement the checks send (and their fixtures'), for the router-plan check on Citus (end of file). */
const sent = captureStatements();
const formation = fullFormation();
const tenantA = await createTestTenant(app, formation);
const tenantB = await createTestTenant(app, formation);
/** A's fixtures; the fuzz makes new ones when its writes have taken them away. */
let own = await seedFixtures(tenantA, 'a', formation);
let generation = 1;
const other = await seedFixtures(tenantB, 'b', formation);
const otherIds = Object.values(other.ids);
const nothingClient = await tenantA.clientWithRole('nothing');
/** A user of A with every permission, for the routes closed to API clients (chat archive). */
const userTokenA = await signedInUser(tenantA);

async function signedInUser(tenant: TestTenant): Promise<string> {
  const api = tenant.api;
  const made = await api.post(`${tenant.admin}/users`, {
    username: 'route-checks',
    email: 'route-checks@example.org',
    roles: [{ permissionName: 'admin', instanceName: tenant.instance.name }],
  });
  if (made.status !== 201) throw new Error(`route checks: no user (${made.text})`);
  await api.put(`${tenant.admin}/users/route-checks/password`, { password: 'route checks password' });
  const login = await tenant.anonymous.post('/auth/token', {
    tenantName: tenant.tenant.name,
    username: 'route-checks',
    password: 'route checks password',
  });
  return login.body.token;
}

/** A's token for an operation: its admin client's, or its user's where the route is for users only. */
function tokenFor(op: { callers?: string | undefined }): string {
  return op.callers === 'USER' ? userTokenA : tenantA.adminClient.token;
}

const document = JSON.parse((await app.server.inject({ method: 'GET', url: '/openapi.json' })).body) as {
  paths: Record<string, Record<string, OperationObject>>;
};

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}
interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}
interface Operation {
  method: string;
  path: string;
  /** `METHOD /path` as the OpenAPI document writes it. */
  key: string;
  pathParams: ParameterObject[];
  queryParams: ParameterObject[];
  bodySchema?: JsonSchema;
  responses: OperationObject['responses'];
  permission?: string;
  public: boolean;
  callers?: string;
}

/** Server routes, not tenant routes: the checks below are for `/{tenantName}/...`. */
const serverRoutes = [/^\/health\//, /^\/auth\/token$/, /^\/openapi\.json$/, /^\/docs/, /^\/metrics$/];

const operations: Operation[] = Object.entries(document.paths)
  .filter(([path]) => !serverRoutes.some((pattern) => pattern.test(path)))
  .flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): Operation => {
      const rule = app.accessTable.get(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
      const parameters = operation.parameters ?? [];
      return {
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        bodySchema: operation.requestBody?.content['application/json']?.schema,
        responses: operation.responses,
        // An any-of route (FHIR's Communication) is checked with a token holding none of them.
        permission: rule?.permission ?? rule?.anyOf?.join(' or '),
        public: rule?.public === true,
        callers: rule?.callers,
      };
    }),
  );
const guarded = operations.filter((op) => op.path.startsWith('/{tenantName}/') && !op.public);

// ---------------------------------------------------------------------------------------------
// Values: A's own for each path parameter, B's for the cross-tenant checks, and arbitraries.

/** Every `name` in the formation: realistic words for strings, keys for free-form objects. */
function formationNames(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) formationNames(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'name' && typeof item === 'string') into.add(item);
      else formationNames(item, into);
    }
  }
  return into;
}
const words = [...formationNames(formation)];
const keys = [...words, 'values', 'jsonBody', 'records', 'id'];

/** Ids for `format: uuid`: A's (reaching records), B's (crossing tenants) and unknown ones. */
function anyUuid(): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom(...Object.values(own.ids)), fc.constantFrom(...otherIds), fc.uuid());
}

/**
 * A's value for a path parameter, as the areas' fixtures give it for this path. An unknown
 * parameter gets a random uuid or word, so a new route still meets every check made before its
 * handler.
 */
function ownValue(op: Operation, param: ParameterObject): string {
  const known = fixtureParam(own, param.name, op.path);
  if (known !== undefined) return known;
  return param.schema.format === 'uuid' ? randomUUID() : `x${randomUUID().slice(0, 8)}`;
}

function ownParams(op: Operation): Record<string, string> {
  return Object.fromEntries(op.pathParams.map((param) => [param.name, ownValue(op, param)]));
}

function segment(value: string): string {
  const encoded = encodeURIComponent(value);
  // `.` and `..` would be resolved away as path steps.
  return /^\.+$/.test(encoded) ? encoded.replaceAll('.', '%2E') : encoded;
}

function urlOf(op: Operation, params: Record<string, string>, query: [string, string][] = []): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => segment(params[name] ?? ''));
  return query.length > 0 ? `${path}?${new URLSearchParams(query)}` : path;
}

const goodBodies = new Map<string, unknown>();

/**
 * A body the operation should take, for checks that must not depend on the body and as the
 * fuzz's starting point: the one that made a fixture; for a PUT or PATCH, what a GET of the same
 * path answers (clients send back what they read, DECISIONS §10); else a generated one.
 */
async function goodBody(op: Operation): Promise<unknown> {
  if (!op.bodySchema) return undefined;
  if (!goodBodies.has(op.key)) {
    let body = own.bodies[op.key];
    const read = operations.find((candidate) => candidate.method === 'GET' && candidate.path === op.path);
    if (body === undefined && read && (op.method === 'PUT' || op.method === 'PATCH')) {
      const answer = await send({ method: 'GET', url: urlOf(read, ownParams(read)), token: tenantA.adminClient.token });
      const value = answer.status === 200 ? (JSON.parse(answer.text) as unknown) : undefined;
      if (value && typeof value === 'object' && !Array.isArray(value)) body = value;
    }
    body ??= fc.sample(new SchemaArbitraries({ uuid: anyUuid(), keys, words }).valid(op.bodySchema), { seed: 42, numRuns: 1 })[0];
    goodBodies.set(op.key, body);
  }
  return structuredClone(goodBodies.get(op.key));
}

/**
 * The good body made new: A's marker text numbered and every uuid but A's fixtures' replaced,
 * so a create does not meet the unique keys of the fixture it made (externalId, username...).
 */
function renewed(value: unknown, n: number, id: string): unknown {
  if (typeof value === 'string') {
    if (uuidText.test(value) && !Object.values(own.ids).includes(value)) return id;
    return value.replaceAll(own.marker, `${own.marker}${n}`);
  }
  if (Array.isArray(value)) return value.map((item) => renewed(item, n, id));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renewed(item, n, id)]));
  }
  return value;
}
const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * New fixtures in A when the fuzz's writes have taken away one this operation's path names: the
 * closest GET above (or at) the path, with A's values, answers 404.
 */
async function keepFixtures(op: Operation): Promise<void> {
  const probe = operations
    .filter(
      (candidate) =>
        candidate.method === 'GET' &&
        (op.path === candidate.path || op.path.startsWith(`${candidate.path}/`)) &&
        candidate.pathParams.some((param) => param.name !== 'tenantName' && param.name !== 'instanceName'),
    )
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!probe) return;
  const answer = await send({ method: 'GET', url: urlOf(probe, ownParams(probe)), token: tenantA.adminClient.token });
  if (answer.status !== 404) return;
  generation += 1;
  own = await seedFixtures(tenantA, `a${generation}`, formation);
  goodBodies.clear();
}

// ---------------------------------------------------------------------------------------------
// Sending requests and checking answers against the document.

interface Sent {
  method: string;
  url: string;
  token?: string;
  /** A value sent as JSON, or a string sent as it is (with the JSON content type). */
  body?: unknown;
  raw?: string;
}
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

/** Answers by status, per check: shown as diagnostics, so a check that never reaches a handler shows. */
const statusCounts = new Map<number, number>();

async function send(request: Sent): Promise<Answer> {
  const hasBody = request.raw !== undefined || request.body !== undefined;
  const response = await app.server.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: {
      ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
    },
    ...(hasBody ? { payload: request.raw ?? JSON.stringify(request.body) } : {}),
  });
  statusCounts.set(response.statusCode, (statusCounts.get(response.statusCode) ?? 0) + 1);
  if (response.statusCode < 300) noteEchoable(JSON.stringify(request));
  return { status: response.statusCode, headers: response.headers, text: response.body };
}

/** The statuses answered since the last call, e.g. `200×12 404×40`. */
function takeStatusCounts(): string {
  const text = [...statusCounts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  statusCounts.clear();
  return text;
}

function clip(text: string, length = 600): string {
  return text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text;
}

function describeExchange(request: Sent, answer: Answer): string {
  const body = request.raw !== undefined ? request.raw : request.body === undefined ? '' : JSON.stringify(request.body);
  return `${request.method} ${clip(request.url, 300)}${body ? ` body ${clip(body, 400)}` : ''} → ${answer.status} ${clip(answer.text)}`;
}

/** The error code of an answer: the API's error array, or a FHIR OperationOutcome's `details.text`. */
function errorCodeOf(answer: Answer): string | undefined {
  try {
    const body = JSON.parse(answer.text) as { errorCode?: string }[] | { issue?: { details?: { text?: string } }[] };
    return Array.isArray(body) ? body[0]?.errorCode : body.issue?.[0]?.details?.text;
  } catch {
    return undefined;
  }
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its function is the module and its default.
const addFormats = ((formats as any).default ?? formats) as (ajv: Ajv2020) => Ajv2020;
addFormats(ajv);
ajv.addFormat('e164', isE164);
ajv.addFormat('timezone', isTimeZone);
const validators = new Map<JsonSchema, ReturnType<typeof ajv.compile>>();

/** What is wrong with an answer, against the operation's documented responses; undefined when nothing. */
function undocumented(op: Operation, answer: Answer): string | undefined {
  if (answer.status >= 500) return `a ${answer.status}`;
  const documented = op.responses[String(answer.status)] ?? op.responses.default;
  if (!documented) return `status ${answer.status} is not documented (${Object.keys(op.responses).join(', ')})`;
  const type = String(answer.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  if (!documented.content) {
    return answer.text === '' ? undefined : `status ${answer.status} is documented without a body, got ${type}`;
  }
  const media = documented.content[type];
  if (!media) return `content type "${type}" is not documented for ${answer.status} (${Object.keys(documented.content)})`;
  // NDJSON (a FHIR bulk export's files) is a JSON document per line, not one document.
  if (!type.endsWith('json') || type.endsWith('ndjson') || !media.schema) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `the body is not JSON`;
  }
  let validate = validators.get(media.schema);
  if (!validate) {
    validate = ajv.compile(media.schema);
    validators.set(media.schema, validate);
  }
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
  return `the body does not match the documented schema: ${errors.join('; ')}`;
}

/**
 * Collects a check's problems, one line per operation and kind of problem with the first
 * exchange that showed it; known failures are reported apart.
 */
class Problems {
  private readonly found = new Map<string, { first: string; times: number }>();
  private readonly known = new Map<KnownFailure, number>();

  constructor(private readonly check: KnownFailure['check']) {}

  /** True, and counted, when the message is a known failure's. */
  isKnown(op: Operation, message: string): boolean {
    const known = knownFailures.find(
      (k) => k.check === this.check && (k.operation === '*' || k.operation === op.key) && k.pattern.test(message),
    );
    if (known) this.known.set(known, (this.known.get(known) ?? 0) + 1);
    return known !== undefined;
  }

  add(op: Operation, problem: string, exchange = ''): void {
    const message = exchange ? `${problem}: ${exchange}` : problem;
    if (this.isKnown(op, message)) return;
    const key = `${op.key}: ${problem}`;
    const seen = this.found.get(key);
    if (seen) seen.times += 1;
    else this.found.set(key, { first: message, times: 1 });
  }

  assertNone(t: TestContext, context: string, deterministic = true): void {
    for (const [known, times] of this.known) t.diagnostic(`known failure ×${times}: ${known.reason}`);
    const messages = [...this.found].map(
      ([key, { first, times }]) => `${key.split(': ')[0]}${times > 1 ? ` (×${times})` : ''}: ${first}`,
    );
    if (deterministic) {
      for (const known of knownFailures.filter((k) => k.check === this.check && !this.known.has(k))) {
        messages.push(`the known failure "${known.reason}" no longer shows: remove it from knownFailures`);
      }
    }
    assert.ok(
      messages.length === 0,
      `${this.check}: ${messages.length} problem(s)${context}\n${messages.map((m) => `  - ${m}`).join('\n')}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

describe('generated route checks', () => {
  test('the access table and the OpenAPI document list the same tenant routes', () => {
    const documented = operations
      .filter((op) => op.path.startsWith('/{tenantName}/'))
      .map((op) => op.key)
      .sort();
    const table = [...app.accessTable.keys()].map((key) => key.replace(/:(\w+)/g, '{$1}')).sort();
    assert.deepEqual(documented, table);
    assert.ok(guarded.length > 50, `only ${guarded.length} operations found`);
  });

  test('authentication: no token is 401 NOT_VALID_JSON_WEB_TOKEN, an expired one 401 TOKEN_EXPIRED', async (t) => {
    const expired = await expiredToken();
    const problems = new Problems('auth');
    for (const op of guarded) {
      const base = { method: op.method, url: urlOf(op, ownParams(op)), body: await goodBody(op) };
      for (const [token, code] of [
        [undefined, 'NOT_VALID_JSON_WEB_TOKEN'],
        [expired, 'TOKEN_EXPIRED'],
        ['not.a.token', 'NOT_VALID_JSON_WEB_TOKEN'],
      ] as const) {
        const request = { ...base, ...(token ? { token } : {}) };
        const answer = await send(request);
        if (answer.status !== 401 || errorCodeOf(answer) !== code)
          problems.add(op, `expected 401 ${code}`, describeExchange(request, answer));
        const problem = undocumented(op, answer);
        if (problem) problems.add(op, problem, describeExchange(request, answer));
      }
    }
    t.diagnostic(takeStatusCounts());
    problems.assertNone(t, ` in ${guarded.length} operations`);
  });

  test("tenancy and permissions: another tenant's token is 403, a token without the permission 403 ACCESS_DENIED", async (t) => {
    const problems = new Problems('access');
    for (const op of guarded) {
      const base = { method: op.method, url: urlOf(op, ownParams(op)), body: await goodBody(op) };
      const foreign = { ...base, token: tenantB.adminClient.token };
      const answer = await send(foreign);
      if (answer.status !== 403) problems.add(op, `expected 403 with another tenant's token`, describeExchange(foreign, answer));
      const problem = undocumented(op, answer);
      if (problem) problems.add(op, problem, describeExchange(foreign, answer));
      if (!op.permission) continue;
      const denied = { ...base, token: nothingClient.token };
      const without = await send(denied);
      // A route closed to API clients answers that first (DECISIONS §2).
      const codes =
        op.callers && op.callers !== 'API_CLIENT' ? ['ACCESS_DENIED', 'ACCESS_FOR_API_CLIENT_RESTRICTED'] : ['ACCESS_DENIED'];
      if (without.status !== 403 || !codes.includes(errorCodeOf(without) ?? '')) {
        problems.add(op, `expected 403 ACCESS_DENIED without ${op.permission}`, describeExchange(denied, without));
      }
      const undocumentedDenial = undocumented(op, without);
      if (undocumentedDenial) problems.add(op, undocumentedDenial, describeExchange(denied, without));
    }
    t.diagnostic(takeStatusCounts());
    problems.assertNone(t, ` in ${guarded.length} operations`);
  });

  describe("another tenant's ids on the caller's own path", () => {
    let before: Record<string, string[]>;

    test('snapshot of the other tenant', async () => {
      before = await tenantSnapshot(app, tenantB.tenant.id);
      assert.ok(before.patients?.length === 1 && (before.tasks?.length ?? 0) >= 2, 'the other tenant has its fixtures');
    });

    test('in a path parameter: 404 or 400', async (t) => {
      const problems = new Problems('cross-path');
      let count = 0;
      for (const op of guarded) {
        const params = ownParams(op);
        const queryVariants = enumQueryVariants(op);
        for (const param of op.pathParams) {
          if (param.name === 'tenantName' || param.name === 'instanceName') continue;
          // A uuid parameter only meets B's uuids; the others (userName) also B's usernames, emails...
          const values = [...otherIds, ...other.alternateKeys].filter(
            (value) => param.schema.format !== 'uuid' || uuidText.test(value),
          );
          const cases: [string, [string, string][]][] = values.map((value) => [value, []]);
          // With each variant of a lookup parameter (`?type=ID|EMAIL`), B's alternate keys and ids again.
          for (const variant of queryVariants) for (const value of values) cases.push([value, [variant]]);
          for (const [value, query] of cases) {
            const request = {
              method: op.method,
              url: urlOf(op, { ...params, [param.name]: value }, query),
              token: tokenFor(op),
              body: await goodBody(op),
            };
            const answer = await send(request);
            count += 1;
            if (answer.status !== 404 && answer.status !== 400) {
              problems.add(op, `expected 404 or 400 with B's value in ${param.name}`, describeExchange(request, answer));
            }
            const problem = undocumented(op, answer);
            if (problem) problems.add(op, problem, describeExchange(request, answer));
          }
        }
      }
      t.diagnostic(takeStatusCounts());
      problems.assertNone(t, ` in ${count} requests`);
    });

    test('in the query and the body: never accepted where an unknown id is refused, and nothing of B answered', async (t) => {
      const problems = new Problems('cross-input');
      let count = 0;
      for (const op of guarded) {
        const params = ownParams(op);
        const good = await goodBody(op);
        const url = (query: [string, string][]) => urlOf(op, params, query);
        const compare = async (where: string, make: (value: string) => Sent) => {
          const unknown = make(randomUUID());
          const unknownAnswer = await send(unknown);
          count += 1;
          for (const value of otherIds) {
            const request = make(value);
            const answer = await send(request);
            count += 1;
            const problem = undocumented(op, answer);
            if (problem) problems.add(op, problem, describeExchange(request, answer));
            if (answer.status >= 300) continue;
            if (unknownAnswer.status >= 400) {
              const refused = `B's id in ${where} is accepted where an unknown id is ${unknownAnswer.status}`;
              problems.add(op, refused, describeExchange(request, answer));
            }
            const leaked = leakOf(answer.text, JSON.stringify(request));
            if (leaked)
              problems.add(op, `the answer holds B's ${leaked} (B's id in ${where})`, describeExchange(request, answer));
          }
        };
        for (const param of op.queryParams) {
          if (!isUuidSchema(param.schema)) continue;
          await compare(`query ${param.name}`, (value) => ({
            method: op.method,
            url: url([[param.name, value]]),
            token: tokenFor(op),
            body: good,
          }));
        }
        if (!op.bodySchema) continue;
        for (const slot of uuidSlots(op.bodySchema)) {
          await compare(`body ${slot.join('.')}`, (value) => ({
            method: op.method,
            url: url([]),
            token: tokenFor(op),
            body: setAt(good, slot, value),
          }));
        }
      }
      t.diagnostic(takeStatusCounts());
      problems.assertNone(t, ` in ${count} requests`);
    });

    test("the other tenant's data is unchanged", async () => {
      assert.deepEqual(await tenantSnapshot(app, tenantB.tenant.id), before);
    });
  });

  test('edges: the boundary values of every documented query parameter and body field, no 5xx, every answer documented', async (t) => {
    const problems = new Problems('edges');
    const before = await tenantSnapshot(app, tenantB.tenant.id);
    let count = 0;
    for (const op of operations.filter((candidate) => candidate.path.startsWith('/{tenantName}/'))) {
      await keepFixtures(op);
      const params = ownParams(op);
      const good = await goodBody(op);
      const requests: Sent[] = [];
      for (const param of op.queryParams) {
        for (const value of edgeValues(param.schema)) {
          requests.push({ method: op.method, url: urlOf(op, params, queryValues(param.name, value, false)), body: good });
        }
      }
      const slots = op.bodySchema ? bodySlots(op.bodySchema) : [];
      const seen = new Set<string>();
      for (const [slot, schema] of slots) {
        const key = JSON.stringify(slot);
        if (seen.has(key)) continue;
        seen.add(key);
        for (const value of edgeValues(schema)) {
          requests.push({ method: op.method, url: urlOf(op, params), body: setAt(good, slot, value) });
        }
      }
      for (const request of requests) {
        const sent = op.public ? request : { ...request, token: tokenFor(op) };
        const answer = await send(sent);
        count += 1;
        const problem = undocumented(op, answer) ?? (answer.status < 300 ? leakOf(answer.text, JSON.stringify(sent)) : undefined);
        if (problem) problems.add(op, problem, describeExchange(sent, answer));
      }
      await keepFormation();
    }
    t.diagnostic(takeStatusCounts());
    problems.assertNone(t, ` in ${count} requests`);
    assert.deepEqual(await tenantSnapshot(app, tenantB.tenant.id), before, "the edge values changed the other tenant's data");
  });

  test(`fuzz: ${FUZZ_RUNS} seeded cases per operation from its schemas, no 5xx, every answer documented`, async (t) => {
    t.diagnostic(`FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${FUZZ_RUNS}`);
    const before = await tenantSnapshot(app, tenantB.tenant.id);
    const selected = operations.filter(
      (op) => op.path.startsWith('/{tenantName}/') && (!FUZZ_ONLY || op.key.includes(FUZZ_ONLY)),
    );
    // Reads first, then writes, deletes last: a deleted fixture leaves fewer paths to explore.
    const order = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    selected.sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
    const problems = new Problems('fuzz');
    let count = 0;
    const unreached: string[] = [];
    for (const op of selected) {
      const seed = (FUZZ_SEED ^ hash(op.key)) | 0;
      await keepFixtures(op);
      const statuses: number[] = [];
      const result = await fc.check(
        fc.asyncProperty(caseOf(op, await goodBody(op)), async (generated) => {
          const request = requestOf(op, generated);
          const answer = await send(request);
          statuses.push(answer.status);
          const leaked = answer.status < 300 ? leakOf(answer.text, JSON.stringify(request)) : undefined;
          const problem = undocumented(op, answer) ?? (leaked && `the answer holds B's ${leaked}`);
          if (!problem) return;
          const message = `${problem}: ${describeExchange(request, answer)}`;
          // A known failure is counted, and the operation's other cases still run.
          if (!problems.isKnown(op, message)) throw new Error(message);
        }),
        {
          numRuns: FUZZ_RUNS,
          seed,
          endOnFailure: true,
          ...(FUZZ_PATH && selected.length === 1 ? { path: FUZZ_PATH } : {}),
        },
      );
      count += statuses.length;
      if (!statuses.some((status) => status < 300)) unreached.push(op.key);
      if (process.env.FUZZ_STATS) t.diagnostic(`${op.key}: ${statuses.sort().join(' ')}`);
      if (result.failed) {
        const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        problems.add(
          op,
          `${error}\n    replay: FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${FUZZ_RUNS} FUZZ_ONLY='${op.key}' FUZZ_PATH=${result.counterexamplePath} (fast-check seed ${result.seed}, path ${result.counterexamplePath})`,
        );
      }
      await keepFormation();
    }
    t.diagnostic(takeStatusCounts());
    // Not a failure: a few cases may all be refused. A long run should reach every operation.
    if (unreached.length > 0) t.diagnostic(`no 2xx answer from: ${unreached.join(', ')}`);
    problems.assertNone(t, ` in ${count} requests (FUZZ_SEED=${FUZZ_SEED}, FUZZ_RUNS=${FUZZ_RUNS})`, false);
    assert.deepEqual(await tenantSnapshot(app, tenantB.tenant.id), before, "the fuzz changed the other tenant's data");
  });
});

// ---------------------------------------------------------------------------------------------
// Helpers of the checks.

/** An HS256 token signed like TokenService.issue, for A's admin client, expired an hour ago. */
async function expiredToken(): Promise<string> {
  let secret = app.config.jwtSecret;
  if (!secret) {
    const row = await app.services.db
      .selectFrom('server_settings')
      .select('value')
      .where('name', '=', 'jwt_secret')
      .executeTakeFirstOrThrow();
    secret = row.value;
  }
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tid: tenantA.tenant.id, typ: 'API_CLIENT', nam: `API_CLIENT:${tenantA.adminClient.name}` })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(tenantA.adminClient.id)
    .setIssuer('cairn')
    .setAudience('cairn-api')
    .setIssuedAt(now - 2 * 3600)
    .setExpirationTime(now - 3600)
    .sign(new TextEncoder().encode(secret));
}

/** `[name, value]` for each value of each query parameter that is a short list of constants (`type=ID|EMAIL`). */
function enumQueryVariants(op: Operation): [string, string][] {
  const variants: [string, string][] = [];
  for (const param of op.queryParams) {
    const constants = constantsOf(param.schema);
    if (constants && constants.length <= 6) for (const value of constants) variants.push([param.name, String(value)]);
  }
  return variants;
}

function constantsOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (!branches) return undefined;
  const values = branches.map(constantsOf);
  return values.every((v) => v !== undefined) ? values.flat() : undefined;
}

function isUuidSchema(schema: JsonSchema): boolean {
  if (schema.format === 'uuid') return true;
  if (schema.items && isUuidSchema(schema.items)) return true;
  return ((schema.anyOf ?? schema.oneOf ?? []) as JsonSchema[]).some(isUuidSchema);
}

type Slot = (string | number)[];

/**
 * Where an id goes in a body: a `format: uuid` value, or a string named `id` or `…Id`
 * (`['assignee', 'id']`, `['watchers', 0, 'id']`, `['ids', 0]`, `['rows', 0, 'id']`).
 */
function uuidSlots(schema: JsonSchema, at: Slot = [], depth = 0): Slot[] {
  if (depth > 6) return [];
  const name = at.at(-1);
  const named = typeof name === 'string' && /^id$|Id$/.test(name) && typesOf(schema).includes('string');
  if (schema.format === 'uuid' || named) return [at];
  const slots: Slot[] = [];
  for (const branch of (schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) as JsonSchema[]) {
    slots.push(...uuidSlots(branch, at, depth + 1));
  }
  for (const [property, inner] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    slots.push(...uuidSlots(inner, [...at, property], depth + 1));
  }
  if (schema.items) slots.push(...uuidSlots(schema.items, [...at, 0], depth + 1));
  const unique = new Map(slots.map((slot) => [JSON.stringify(slot), slot]));
  return [...unique.values()];
}

function typesOf(schema: JsonSchema): string[] {
  return typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
}

/** `value` with `slot` set, making the objects and lists on the way. */
function setAt(value: unknown, slot: Slot, item: unknown): unknown {
  if (slot.length === 0) return item;
  const [head, ...rest] = slot as [string | number, ...Slot];
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...value] : [];
    list[0] = setAt(list[0], rest, item);
    return list;
  }
  const object = value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
  object[head] = setAt(object[head], rest, item);
  return object;
}

/** `value` without what is at `slot`. */
function dropAt(value: unknown, slot: Slot): unknown {
  if (slot.length === 0 || !value || typeof value !== 'object') return value;
  const [head, ...rest] = slot as [string | number, ...Slot];
  if (Array.isArray(value)) {
    if (typeof head !== 'number') return value;
    return rest.length === 0 ? value.slice(1) : [dropAt(value[0], rest), ...value.slice(1)];
  }
  const { [String(head)]: inner, ...others } = value as Record<string, unknown>;
  return rest.length === 0 ? others : { ...others, [head]: dropAt(inner, rest) };
}

/**
 * B's values that A may hold by now: sent by a request that succeeded (an opaque `sourceId` or
 * `externalGuid` may hold any uuid, B's too). Any other value of B's in A's answers is a leak.
 */
const echoable = new Set<string>();

function noteEchoable(sent: string): void {
  for (const value of [other.marker, ...otherIds]) if (sent.includes(value)) echoable.add(value);
}

/** B's marker text or an id of B's in an answer, unless A's requests sent it (an echo is no leak). */
function leakOf(answer: string, sent: string): string | undefined {
  const foreign = (value: string) => answer.includes(value) && !sent.includes(value) && !echoable.has(value);
  if (foreign(other.marker)) return `data (${other.marker})`;
  for (const [kind, id] of Object.entries(other.ids)) if (foreign(id)) return `${kind} id ${id}`;
  return undefined;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

interface FuzzCase {
  params: Record<string, string>;
  query: [string, string][];
  body: { value?: unknown; raw?: string } | undefined;
}

const garbage = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ minLength: 1, maxLength: 10, unit: 'binary' }),
  fc.constantFrom('%00', "' OR 1=1 --", 'null', '-1', '0', '1e999', ' ', 'x'.repeat(400), 'ÄÖÜ', '😀', 'undefined', '[]'),
);

/**
 * The arbitraries of one operation: strings drawn from the formation's names and from the
 * property names its answers document (with `,asc`/`,desc`, so sorts and filters get exercised).
 */
function arbitrariesFor(op: Operation): SchemaArbitraries {
  const answered = new Set<string>();
  for (const [status, response] of Object.entries(op.responses)) {
    if (!status.startsWith('2')) continue;
    for (const media of Object.values(response.content ?? {})) if (media.schema) propertyNames(media.schema, answered);
  }
  const fields = [...answered].flatMap((name) => [name, `${name},asc`, `${name},DESC`]);
  return new SchemaArbitraries({ uuid: anyUuid(), keys, words: [...words, ...fields] });
}

function propertyNames(schema: JsonSchema, into: Set<string>, depth = 0): void {
  if (depth > 6 || !schema || typeof schema !== 'object') return;
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    into.add(name);
    propertyNames(property, into, depth + 1);
  }
  if (schema.items) propertyNames(schema.items, into, depth + 1);
  for (const branch of (schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) as JsonSchema[])
    propertyNames(branch, into, depth + 1);
}

/** Every place in a body where a value can go, with its schema: properties, list items, anyOf branches. */
function bodySlots(schema: JsonSchema, at: Slot = [], depth = 0): [Slot, JsonSchema][] {
  if (depth > 5 || !schema || typeof schema !== 'object') return [];
  const slots: [Slot, JsonSchema][] = at.length > 0 ? [[at, schema]] : [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    slots.push(...bodySlots(property, [...at, name], depth + 1));
  }
  if (schema.items) slots.push(...bodySlots(schema.items, [...at, 0], depth + 1));
  for (const branch of (schema.anyOf ?? schema.oneOf ?? []) as JsonSchema[])
    slots.push(...bodySlots(branch, at, depth + 1).filter(([slot]) => slot.length > at.length));
  return slots;
}

/** The arbitrary of one request to `op`: path values, query and body, valid and not. */
function caseOf(op: Operation, good: unknown): fc.Arbitrary<FuzzCase> {
  const arbitraries = arbitrariesFor(op);
  const params = Object.fromEntries(
    op.pathParams.map((param) => {
      const mine = ownValue(op, param);
      // The tenant and instance stay A's: B's would only meet the tenancy check (and B's token limits).
      if (param.name === 'tenantName' || param.name === 'instanceName') {
        return [param.name, fc.oneof({ arbitrary: fc.constant(mine), weight: 15 }, { arbitrary: garbage, weight: 1 })];
      }
      return [
        param.name,
        fc.oneof(
          { arbitrary: fc.constant(mine), weight: 12 },
          { arbitrary: fc.constantFrom(...otherIds, ...other.alternateKeys), weight: 1 },
          { arbitrary: fc.uuid(), weight: 1 },
          // An empty segment would be another route (`/users/` is `/users`).
          { arbitrary: arbitraries.valid(param.schema).map((value) => String(value) || '0'), weight: 1 },
          { arbitrary: garbage, weight: 1 },
        ),
      ];
    }),
  ) as Record<string, fc.Arbitrary<string>>;

  const documentedQuery = op.queryParams.map((param) =>
    fc.option(
      fc
        .tuple(
          fc.oneof({ arbitrary: arbitraries.valid(param.schema), weight: 3 }, arbitraries.invalid(param.schema)),
          fc.boolean(),
        )
        .map(([value, loud]): [string, string][] => queryValues(param.name, value, loud)),
      { nil: [] as [string, string][], freq: 2 },
    ),
  );
  const unknownQuery = fc.option(
    fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 20 })), { maxLength: 3 }),
    { nil: [] as [string, string][], freq: 2 },
  );
  // Now and then a parameter comes twice (`?page=1&page=2`), as a badly built URL sends it.
  const query = fc.tuple(unknownQuery, fc.nat(9), ...documentedQuery).map(([unknown, twice, ...known]) => {
    const pairs = (known as [string, string][][]).flat();
    const repeated = twice === 0 && pairs.length > 0 ? [pairs[0]!] : [];
    return [...pairs, ...repeated, ...unknown];
  });

  return fc.record({ params: fc.record(params), query, body: bodyOf(op, arbitraries, good) });
}

/** Bodies: the good one, one with a value changed (valid or not) or dropped, generated ones, and text that is not JSON. */
function bodyOf(op: Operation, arbitraries: SchemaArbitraries, good: unknown): fc.Arbitrary<FuzzCase['body']> {
  if (!op.bodySchema) return fc.constant(undefined);
  const schema = op.bodySchema;
  const slots = bodySlots(schema);
  // A free-form body (`additionalProperties`) has no declared slots: its good body's keys are.
  if (good && typeof good === 'object' && !Array.isArray(good)) {
    for (const key of Object.keys(good)) {
      if (!slots.some(([slot]) => slot.length === 1 && slot[0] === key)) slots.push([[key], schema.additionalProperties ?? {}]);
    }
  }
  const fresh = fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.uuid()).map(([n, id]) => renewed(good, n, id));
  const choices: fc.WeightedArbitrary<FuzzCase['body']>[] = [
    { arbitrary: fresh.map((value) => ({ value })), weight: 2 },
    { arbitrary: arbitraries.valid(schema).map((value) => ({ value })), weight: 2 },
    { arbitrary: arbitraries.invalid(schema).map((value) => ({ value })), weight: 2 },
    {
      arbitrary: fc
        .oneof(fc.constantFrom('{', '{"a":', '[1,]', 'nul', "{'a':1}", '\u0000', '{}}', ' '), fc.string())
        .map((raw) => ({ raw })),
      weight: 1,
    },
  ];
  if (slots.length > 0) {
    const changed = fc
      .tuple(fresh, fc.constantFrom(...slots))
      .chain(([base, [slot, sub]]) =>
        fc
          .oneof(arbitraries.valid(sub), arbitraries.invalid(sub), fc.constant(undefined))
          .map((value) => ({ value: value === undefined ? dropAt(base, slot) : setAt(base, slot, value) })),
      );
    choices.push({ arbitrary: changed, weight: 4 });
  }
  return fc.oneof(...choices);
}

/** A query value as text: lists comma-separated, booleans in any case (DECISIONS §10). */
function queryValues(name: string, value: unknown, loud: boolean): [string, string][] {
  const text = (item: unknown): string => {
    if (typeof item === 'boolean') return loud ? String(item).toUpperCase() : String(item);
    if (typeof item === 'string') return item;
    return JSON.stringify(item) ?? '';
  };
  if (Array.isArray(value)) {
    // Repeated keys work as well as a comma list (000 convention 5).
    return loud && value.length > 1 ? value.map((item) => [name, text(item)]) : [[name, value.map(text).join(',')]];
  }
  return [[name, text(value)]];
}

function requestOf(op: Operation, generated: FuzzCase): Sent {
  return {
    method: op.method,
    url: urlOf(op, generated.params, generated.query),
    ...(op.public ? {} : { token: tokenFor(op) }),
    ...(generated.body?.raw !== undefined ? { raw: generated.body.raw } : {}),
    ...(generated.body && 'value' in generated.body && generated.body.value !== undefined ? { body: generated.body.value } : {}),
  };
}

let formationVersion = tenantA.instance.currentFormationVersion;

/** A fuzzed formation publish would take A's permissions away: A's formation is put back after one. */
async function keepFormation(): Promise<void> {
  const row = await app.services.db
    .selectFrom('instances')
    .select('current_formation_version')
    .where('tenant_id', '=', tenantA.tenant.id)
    .where('id', '=', tenantA.instance.id)
    .executeTakeFirstOrThrow();
  if (row.current_formation_version === formationVersion) return;
  const published = await applyFormation(systemContext(app.services, tenantA.tenant, tenantA.instance), formation);
  formationVersion = published.version;
}

// ---------------------------------------------------------------------------------------------
// The access log over the route table: every answer that shows a patient's data has its record,
// whichever way it went out (DECISIONS "Access log").

describe('the access log: every disclosing route, every way its answer goes out', () => {
  test('a fresh answer, a replay of a kept one, an empty page with a total, a write answer: each is recorded', async (t) => {
    const tenant = await createTestTenant(app, formation);
    const fixtures = await seedFixtures(tenant, 'c', formation);
    const userToken = await signedInUser(tenant);
    const patientIds = (
      await app.services.db.selectFrom('patients').select('id').where('tenant_id', '=', tenant.tenant.id).execute()
    ).map((row) => row.id);
    const disclosing = operations.filter((op) => {
      const rule = app.accessTable.get(`${op.method} ${op.path.replace(/\{(\w+)\}/g, ':$1')}`);
      // The log's own records hold ids and metadata only: reading or exporting them is not itself logged.
      const theLog = /access-log|ACCESS_LOG/.test(op.path);
      return op.path.startsWith('/{tenantName}/') && !theLog && rule?.discloses !== undefined && 'resource' in rule.discloses;
    });
    // Reads first, then writes, deletes last: a delete takes away what later routes name.
    const rank = (op: Operation) => (op.method === 'GET' ? 0 : op.method === 'DELETE' ? 2 : 1);
    const ordered = [...disclosing].sort((a, b) => rank(a) - rank(b));
    const params = (op: Operation) =>
      Object.fromEntries(op.pathParams.map((param) => [param.name, fixtureParam(fixtures, param.name, op.path) ?? randomUUID()]));
    const problems: string[] = [];
    const exercised = { fresh: 0, replayed: 0, emptyPage: 0 };

    /** The record of an answer, found by the request id it answered with. */
    async function recordOf(answer: { headers: Record<string, unknown> }) {
      return app.services.db
        .selectFrom('access_log')
        .selectAll()
        .where('tenant_id', '=', tenant.tenant.id)
        .where('request_id', '=', String(answer.headers['x-request-id']))
        .executeTakeFirst();
    }

    /** The patients an answer shows: those whose ids its body holds, and those its path names when it has a body. */
    function shownPatients(url: string, text: string): string[] {
      return text === '' ? [] : patientIds.filter((id) => url.includes(id) || text.includes(id));
    }

    async function expectRecord(op: Operation, how: string, url: string, answer: Answer, matched?: number) {
      const shown = shownPatients(url, answer.text);
      const record = await recordOf(answer);
      if (shown.length === 0 && matched === undefined) return;
      if (!record)
        return void problems.push(`${op.key} (${how}): answered ${answer.status} showing ${shown.length} patient(s), no record`);
      const missing = shown.filter((id) => !record.patient_ids.includes(id));
      if (missing.length > 0) problems.push(`${op.key} (${how}): the record does not name ${missing.length} patient(s) shown`);
      if (matched !== undefined && record.matched !== matched)
        problems.push(`${op.key} (${how}): the record says ${record.matched} matched, the answer ${matched}`);
    }

    for (const op of ordered) {
      const token = op.callers === 'USER' ? userToken : tenant.adminClient.token;
      const url = urlOf(op, params(op));
      const write = op.method !== 'GET' && op.method !== 'DELETE';
      let body = fixtures.bodies[op.key];
      const read = operations.find((candidate) => candidate.method === 'GET' && candidate.path === op.path);
      if (body === undefined && read && (op.method === 'PUT' || op.method === 'PATCH')) {
        const answer = await send({ method: 'GET', url: urlOf(read, params(read)), token });
        if (answer.status === 200) body = JSON.parse(answer.text);
      }
      if (write && body === undefined && op.bodySchema) body = {};
      const key = randomUUID();
      const request = {
        method: op.method as 'GET',
        url,
        headers: {
          authorization: `Bearer ${token}`,
          ...(write ? { 'idempotency-key': key } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(renewed(body, 900, randomUUID())) } : {}),
      };
      const fresh = await app.server.inject(request);
      if (fresh.statusCode >= 300) continue;
      exercised.fresh += 1;
      const answer = { status: fresh.statusCode, headers: fresh.headers, text: fresh.body };
      await expectRecord(op, 'fresh', url, answer);
      if (write) {
        const again = await app.server.inject(request);
        if (again.headers['idempotent-replayed'] === 'true') {
          exercised.replayed += 1;
          await expectRecord(op, 'replayed', url, { status: again.statusCode, headers: again.headers, text: again.body });
        }
      }
      // A page past the end: no item, but its total still tells how many match.
      const page = op.method === 'GET' && op.queryParams.some((param) => param.name === 'page') ? JSON.parse(fresh.body) : null;
      const total = page?.totalElements ?? page?.metaInfo?.totalElements;
      if (typeof total === 'number' && total > 0) {
        const beyond = `${url}${url.includes('?') ? '&' : '?'}page=${total + 1}`;
        const empty = await app.server.inject({ method: 'GET', url: beyond, headers: { authorization: `Bearer ${token}` } });
        if (empty.statusCode === 200) {
          exercised.emptyPage += 1;
          await expectRecord(op, 'empty page', beyond, { status: 200, headers: empty.headers, text: empty.body }, total);
        }
      }
    }
    t.diagnostic(`${disclosing.length} disclosing routes: ${JSON.stringify(exercised)}`);
    assert.deepEqual(problems, []);
    assert.ok(exercised.fresh > 100 && exercised.replayed > 20 && exercised.emptyPage > 10, JSON.stringify(exercised));
  });
});

// ---------------------------------------------------------------------------------------------
// On Citus: every statement the checks above sent is a router plan, but the cross-tenant ones.

describe('one shard per statement', { skip: app.services.dbKind !== 'citus' && 'only on a Citus coordinator' }, () => {
  test('every statement the route checks sent runs on one shard (EXPLAIN on the coordinator), but those db/cross-tenant.ts lists', async () => {
    stopCapture(sent);
    const problems = await routerPlanProblems(app.services.db, sent);
    assert.deepEqual(
      problems.map(({ statement, problem }) => `${problem}: ${statement}`),
      [],
      `${problems.length} of ${sent.size} statements are not router plans`,
    );
  });
});
