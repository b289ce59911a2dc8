import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { SEND_EMAIL } from '../modules/email/send.ts';
import {
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  errorCode,
  errorPaths,
  type Response,
  startApp,
} from '../test/harness.ts';
import { fixtureParam, fullFormation, seedFixtures } from '../test/route-fixtures.ts';

/**
 * An absent body: every operation whose body has no required field takes a request with no body
 * and no Content-Type as `{}` (validation.ts, registerAbsentBodies); one with a required field
 * still answers 400 VALIDATION_ERROR. The operations come from the OpenAPI document and the
 * access table, as in route-checks.test.ts, so a route added tomorrow is checked too.
 */

const app = await startApp();
const formation = fullFormation();
const tenant = await createTestTenant(app, formation);
const fixtures = await seedFixtures(tenant, 'e', formation);

/** A user of the tenant with every permission, for the routes closed to API clients (chat archive). */
async function signedInUser(): Promise<string> {
  const made = await tenant.api.post(`${tenant.admin}/users`, {
    username: 'empty-body',
    email: 'empty-body@example.org',
    roles: [{ permissionName: 'admin', instanceName: tenant.instance.name }],
  });
  assert.equal(made.status, 201, made.text);
  await tenant.api.put(`${tenant.admin}/users/empty-body/password`, { password: 'empty body password' });
  const login = await tenant.anonymous.post('/auth/token', {
    tenantName: tenant.tenant.name,
    username: 'empty-body',
    password: 'empty body password',
  });
  assert.equal(login.status, 200, login.text);
  return login.body.token;
}
const userToken = await signedInUser();

type JsonSchema = { type?: unknown; required?: string[] };
interface OperationObject {
  parameters?: { name: string; in: string; schema: { format?: string } }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
}
const document = JSON.parse((await app.server.inject({ method: 'GET', url: '/openapi.json' })).body) as {
  paths: Record<string, Record<string, OperationObject>>;
};

interface Operation {
  key: string;
  method: string;
  path: string;
  pathParams: { name: string; format?: string }[];
  body: JsonSchema;
  /** What the document says of the body: whether a client must send one. */
  bodyRequired: boolean;
  callers?: string;
}

/**
 * Media types only a route reading its own body documents (request-bodies.ts): such a route has
 * no body schema for Fastify to check, and its handler decides what an absent body means.
 */
const ownBodyTypes = ['multipart/form-data', 'message/rfc822'];

/**
 * The authorization servers' forms (`<FHIR base>/oauth/…`) answer OAuth's errors or a page, not the
 * error array this test reads; apps.test.ts covers them.
 */
const oauthForms = /\/fhir\/R4\/oauth\//;

/** Every operation under `/{tenantName}/` with a body Fastify checks against its schema. */
const operations: Operation[] = Object.entries(document.paths)
  .filter(([path]) => path.startsWith('/{tenantName}/') && !oauthForms.test(path))
  .flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]): Operation[] => {
      const content = operation.requestBody?.content ?? {};
      if (Object.keys(content).some((type) => ownBodyTypes.includes(type))) return [];
      const body = (content['application/json'] ?? content['application/x-www-form-urlencoded'])?.schema;
      if (!body) return [];
      const rule = app.accessTable.get(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
      return [
        {
          key: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          pathParams: (operation.parameters ?? [])
            .filter((p) => p.in === 'path')
            .map((p) => ({ name: p.name, ...(p.schema.format ? { format: p.schema.format } : {}) })),
          body,
          bodyRequired: operation.requestBody?.required === true,
          ...(rule?.callers ? { callers: rule.callers } : {}),
        },
      ];
    }),
  );

const isObject = (schema: JsonSchema) => schema.type === 'object';
const optional = operations.filter((op) => isObject(op.body) && (op.body.required ?? []).length === 0);
const required = operations.filter((op) => isObject(op.body) && (op.body.required ?? []).length > 0);

/** The seeded record for each path parameter; an unknown one gets an id that leads to a 404, never a 400. */
function urlOf(op: Operation): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value =
      fixtureParam(fixtures, name, op.path) ??
      (op.pathParams.find((p) => p.name === name)?.format === 'uuid' ? randomUUID() : `x${randomUUID().slice(0, 8)}`);
    return encodeURIComponent(value);
  });
}

/**
 * A request with nothing after its headers: no payload and no Content-Type (the harness's Api
 * always sends `{}`), under a token holding every permission.
 */
async function sendWithoutBody(
  op: Pick<Operation, 'method' | 'callers'>,
  url: string,
  headers: Record<string, string> = {},
  payload?: string,
): Promise<Response> {
  const token = op.callers === 'USER' ? userToken : tenant.adminClient.token;
  const answer = await app.server.inject({
    method: op.method as InjectOptions['method'],
    url,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  let body: unknown;
  try {
    body = answer.body ? JSON.parse(answer.body) : undefined;
  } catch {
    body = answer.body;
  }
  return { status: answer.statusCode, body, headers: answer.headers, text: answer.body };
}

/** The whole body refused ("body must be object"), as Fastify's check of an undefined body says. */
function bodyRefused(answer: Response): boolean {
  return answer.status === 400 && errorCode(answer) === 'VALIDATION_ERROR' && errorPaths(answer).includes('body');
}

/** What a 400 says, to compare two answers: its code and the fields it names. */
function refusal(answer: Response): string {
  return `${answer.status} ${errorCode(answer)} ${JSON.stringify(errorPaths(answer).sort())}`;
}

describe('a request with no body', () => {
  test('the route table has operations of both kinds', () => {
    const keys = optional.map((op) => op.key);
    assert.ok(keys.includes('POST /{tenantName}/{instanceName}/sandbox/outbox/{messageId}/deliver'), keys.join('\n'));
    assert.ok(optional.length >= 20, `only ${optional.length} operations with an optional body`);
    assert.ok(required.length >= 20, `only ${required.length} operations with a required body field`);
    // The document says which bodies a client may leave out, so generated clients do not insist on one.
    assert.deepEqual(
      optional.filter((op) => op.bodyRequired).map((op) => op.key),
      [],
    );
    assert.deepEqual(
      required.filter((op) => !op.bodyRequired).map((op) => op.key),
      [],
    );
  });

  test('is taken as {} by every operation whose body has no required field', async (t) => {
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    for (const op of optional) {
      const url = urlOf(op);
      const answer = await sendWithoutBody(op, url);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500 || bodyRefused(answer)) {
        problems.push(`${op.method} ${url} → ${answer.status} ${answer.text}`);
      } else if (answer.status === 400) {
        // Only what `{}` itself is refused for: fields the formation requires (a PDT's, a CDT's).
        const empty = await sendWithoutBody(op, url, { 'content-type': 'application/json' }, '{}');
        if (refusal(empty) !== refusal(answer)) {
          problems.push(`${op.method} ${url} → ${refusal(answer)} with no body, ${refusal(empty)} with {}`);
        } else t.diagnostic(`${op.key}: ${refusal(answer)}, as for {}`);
      }
    }
    t.diagnostic(`${optional.length} operations: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}`);
    assert.deepEqual(problems, [], `${problems.length} of ${optional.length} operations refused an absent body`);
  });

  test('is still 400 VALIDATION_ERROR where the body has a required field', async () => {
    const problems: string[] = [];
    for (const op of required) {
      const url = urlOf(op);
      const answer = await sendWithoutBody(op, url);
      if (!bodyRefused(answer)) problems.push(`${op.method} ${url} → ${answer.status} ${answer.text}`);
    }
    assert.deepEqual(problems, [], `${problems.length} of ${required.length} operations took an absent body`);
    assertValidation(await sendWithoutBody({ method: 'POST' }, `${tenant.base}/sandbox/inbound`), 'body');
  });
});

describe('the sandbox outbox, told with no body', () => {
  test('delivers, bounces and fails an email sent through it', async () => {
    const patient = await createPatient(tenant, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' });
    const drafts = `${tenant.base}/patients/${patient.id}/email-drafts`;
    const sent: string[] = [];
    for (const subject of ['Delivered', 'Bounced', 'Failed']) {
      const draft = await tenant.api.post(drafts, { subject, body: 'All clear' });
      assert.equal(draft.status, 201, draft.text);
      const email = await tenant.api.post(`${drafts}/${draft.body.id}/send`);
      assert.equal(email.status, 200, email.text);
      sent.push(email.body.id);
    }
    // Only this tenant's sends: relaying the fixtures' events would reach for their webhook.
    await app.services.jobs.drain({ tenants: [tenant.tenant.id], kinds: [SEND_EMAIL] });
    const outbox = await tenant.api.get(`${tenant.base}/sandbox/outbox?channel=EMAIL&status=ACCEPTED&size=100`);
    assert.equal(outbox.status, 200, outbox.text);
    const messageOf = (emailId: string) =>
      (outbox.body.content as { id: string; reference: string }[]).find((message) => message.reference === emailId)!.id;
    const [delivered, bounced, failed] = sent.map(messageOf) as [string, string, string];
    const outcome = (message: string, action: string) => `${tenant.base}/sandbox/outbox/${message}/${action}`;

    // An explicit null is a body, and not an object.
    assertValidation(
      await sendWithoutBody({ method: 'POST' }, outcome(delivered, 'deliver'), { 'content-type': 'application/json' }, 'null'),
      'body',
    );

    // No Content-Type, no Content-Length.
    const deliver = await sendWithoutBody({ method: 'POST' }, outcome(delivered, 'deliver'));
    assert.equal(deliver.status, 200, deliver.text);
    assert.equal((deliver.body as { status: string }).status, 'DELIVERED');
    // Content-Length: 0.
    const bounce = await sendWithoutBody({ method: 'POST' }, outcome(bounced, 'bounce'), { 'content-length': '0' });
    assert.equal(bounce.status, 200, bounce.text);
    assert.equal((bounce.body as { status: string }).status, 'BOUNCED');
    // Content-Type: application/json with nothing after it is no body either (app.ts).
    const fail = await sendWithoutBody({ method: 'POST' }, outcome(failed, 'fail'), { 'content-type': 'application/json' }, '');
    assert.equal(fail.status, 200, fail.text);
    assert.equal((fail.body as { status: string }).status, 'FAILED');

    const emailStatus = async (id: string) => (await tenant.api.get(`${tenant.base}/patients/${patient.id}/emails/${id}`)).body;
    assert.equal((await emailStatus(sent[0]!)).status, 'DELIVERED');
    assert.equal((await emailStatus(sent[1]!)).status, 'REJECTED');
    assert.equal((await emailStatus(sent[1]!)).errorMessage, 'Bounced by the sandbox');
    assert.equal((await emailStatus(sent[2]!)).status, 'FAILED');
    assertCode(await sendWithoutBody({ method: 'POST' }, outcome(delivered, 'bounce')), 409, 'SANDBOX_MESSAGE_SETTLED');
  });
});
