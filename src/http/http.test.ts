import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Api, createTestTenant, errorCode, isoMillis, startApp } from '../test/harness.ts';

const app = await startApp({ bodyLimitBytes: 4096, corsOrigins: ['https://app.example'] });
const anonymous = new Api(app.server, undefined);

describe('error format (DECISIONS §2)', () => {
  test('an unknown route is a 404 array of one error object', async () => {
    const response = await anonymous.get('/no/such/route/here');
    assert.equal(response.status, 404);
    assert.ok(Array.isArray(response.body));
    assert.equal(response.body.length, 1);
    const [error] = response.body;
    assert.deepEqual(Object.keys(error).sort(), ['componentType', 'date', 'details', 'errorCode', 'message']);
    assert.equal(error.errorCode, 'ROUTE_NOT_FOUND');
    assert.match(error.date, isoMillis);
  });

  test('bad JSON, a wrong content type and an oversize body are clear 4xx', async () => {
    const t = await createTestTenant(app);
    const broken = await t.api.request('POST', `${t.base}/patients`, '{"firstName": ', { 'content-type': 'application/json' });
    assert.equal(broken.status, 400);
    assert.equal(errorCode(broken), 'MALFORMED_JSON');
    const xml = await t.api.request('POST', `${t.base}/patients`, '<patient/>', { 'content-type': 'application/xml' });
    assert.equal(xml.status, 415);
    assert.equal(errorCode(xml), 'UNSUPPORTED_MEDIA_TYPE');
    const huge = await t.api.post(`${t.base}/patients`, { firstName: 'A', lastName: 'B', notes: 'x'.repeat(5000) });
    assert.equal(huge.status, 413);
    assert.equal(errorCode(huge), 'PAYLOAD_TOO_LARGE');
  });

  test('a body nesting deeper than 64 levels is 400 BAD_REQUEST, before any handler runs', async () => {
    const t = await createTestTenant(app);
    const draftBefore = (await t.api.get(`${t.base}/formations/draft`)).body;
    const nested = (depth: number): unknown => (depth <= 1 ? { leaf: true } : { inner: nested(depth - 1) });
    // Unknown keys are ignored (DECISIONS §10), but not read: they never reach the handler.
    const deep = await t.api.put(`${t.base}/formations/draft`, { widgets: nested(100) });
    assert.equal(deep.status, 400, deep.text);
    assert.equal(errorCode(deep), 'BAD_REQUEST');
    assert.deepEqual(deep.body[0].details, { maxDepth: 64 });
    const arrays = await t.api.request('POST', `${t.base}/patients`, `{"a":${'['.repeat(80)}${']'.repeat(80)}}`, {
      'content-type': 'application/json',
    });
    assert.equal(errorCode(arrays), 'BAD_REQUEST');
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft`)).body, draftBefore, 'nothing was saved');
    const fine = await t.api.put(`${t.base}/formations/draft`, { widgets: nested(60) });
    assert.equal(fine.status, 200, fine.text);
  });

  test('schema failures name each field, and wrong types are not coerced', async () => {
    const t = await createTestTenant(app);
    const response = await t.api.post(`${t.base}/patients`, { firstName: 5, lastName: 'B', email: 'not-an-email' });
    assert.equal(response.status, 400);
    assert.equal(errorCode(response), 'VALIDATION_ERROR');
    const paths = response.body[0].details.errors.map((e: { path: string }) => e.path);
    assert.ok(paths.includes('body.firstName'), paths.join());
    const missing = await t.api.post(`${t.base}/patients`, { lastName: 'B' });
    assert.ok(missing.body[0].details.errors.some((e: { path: string }) => e.path === 'body.firstName'));
  });

  test('a bodiless DELETE with Content-Type: application/json is accepted', async () => {
    const t = await createTestTenant(app);
    const created = await t.api.post(`${t.base}/patients`, { firstName: 'A', lastName: 'B' });
    const response = await t.api.request('DELETE', `${t.base}/patients/${created.body.id}`, undefined, {
      'content-type': 'application/json',
    });
    assert.equal(response.status, 200);
    assert.equal(response.text, '');
  });
});

describe('query conventions (DECISIONS §10, 000)', () => {
  test('booleans in any case, unknown parameters ignored, out-of-range page sizes rejected', async () => {
    const t = await createTestTenant(app);
    for (const value of ['true', 'True', 'TRUE', 'false']) {
      const response = await t.api.get(`${t.base}/patients?withoutCareTeam=${value}&unknownThing=1&page=0`);
      assert.equal(response.status, 200, value);
    }
    assert.equal((await t.api.get(`${t.base}/patients?withoutCareTeam=yes`)).status, 400);
    assert.equal((await t.api.get(`${t.admin}/users?size=1000`)).status, 200);
    assert.equal((await t.api.get(`${t.admin}/users?size=1001`)).status, 400);
    assert.equal((await t.api.get(`${t.admin}/users?size=0`)).status, 400);
    assert.equal((await t.api.get(`${t.admin}/users?page=-1`)).status, 400);
    assert.equal((await t.api.get(`${t.admin}/users?size=ten`)).status, 400);
  });

  test('every response carries Cache-Control: no-store; CORS follows the configured origins', async () => {
    const t = await createTestTenant(app);
    const ok = await t.api.get(`${t.base}/patients`);
    assert.equal(ok.headers['cache-control'], 'no-store');
    const error = await anonymous.get('/nope');
    assert.equal(error.headers['cache-control'], 'no-store');
    const preflight = await app.server.inject({
      method: 'OPTIONS',
      url: `${t.base}/patients`,
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example');
    const stranger = await app.server.inject({ method: 'GET', url: '/health/live', headers: { origin: 'https://evil.example' } });
    assert.equal(stranger.headers['access-control-allow-origin'], undefined);
  });
});

describe('browser security', () => {
  test('every response carries security headers from helmet; the API forbids framing and content', async () => {
    const t = await createTestTenant(app);
    for (const response of [
      await t.api.get(`${t.base}/patients`),
      await anonymous.get('/nope'),
      await anonymous.get('/health/live'),
    ]) {
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.match(String(response.headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/);
      assert.equal(response.headers['referrer-policy'], 'no-referrer');
      // HSTS only when configured: on plain HTTP it would strand clients.
      assert.equal(response.headers['strict-transport-security'], undefined);
    }
  });

  test('/docs has its own CSP, which lets its scripts and styles load from itself only', async () => {
    const page = await anonymous.get('/docs/');
    assert.equal(page.status, 200);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-eval|upgrade-insecure-requests/);
    const script = await anonymous.get('/docs/static/swagger-ui-bundle.js');
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
  });

  test('HSTS is sent when CAIRN_HSTS is set', async () => {
    const tls = await startApp({ hsts: true });
    const response = await tls.server.inject({ method: 'GET', url: '/health/live' });
    assert.match(String(response.headers['strict-transport-security']), /max-age=31536000/);
  });

  test('a preflight allows every method and the Authorization and Content-Type headers', async () => {
    const t = await createTestTenant(app);
    const methods = new Set([...app.accessTable.keys()].map((route) => route.split(' ')[0]!));
    for (const method of methods) {
      const preflight = await app.server.inject({
        method: 'OPTIONS',
        url: `${t.base}/patients/${t.instance.id}`,
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      assert.equal(preflight.statusCode, 204, method);
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example');
      assert.ok(String(preflight.headers['access-control-allow-methods']).split(', ').includes(method), method);
      const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase();
      assert.ok(allowed.includes('authorization') && allowed.includes('content-type'), allowed);
    }
    // A browser app reads Retry-After and the request id from responses.
    const response = await app.server.inject({ method: 'GET', url: '/health/live', headers: { origin: 'https://app.example' } });
    assert.match(String(response.headers['access-control-expose-headers']), /Retry-After/);
  });
});

describe('operations endpoints', () => {
  test('health: live, and ready checks the database', async () => {
    assert.deepEqual((await anonymous.get('/health/live')).body, { status: 'ok', worker: 0 });
    const ready = await anonymous.get('/health/ready');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ok');
  });

  test('metrics count requests by route pattern and status, with latency', async () => {
    const t = await createTestTenant(app);
    await t.api.get(`${t.base}/patients?search=SECRET-NAME`);
    const metrics = await anonymous.get('/metrics');
    assert.equal(metrics.status, 200);
    assert.match(
      metrics.text,
      /cairn_http_requests_total\{method="GET",route="\/:tenantName\/:instanceName\/patients",status="200"\} \d+/,
    );
    assert.match(metrics.text, /cairn_http_request_duration_seconds_bucket/);
    assert.ok(!metrics.text.includes('SECRET-NAME'));
    assert.ok(!metrics.text.includes(t.tenant.name));
  });

  test('/openapi.json is OpenAPI 3.1, covers every route and names each permission', async () => {
    const response = await anonymous.get('/openapi.json');
    assert.equal(response.status, 200);
    const document = response.body;
    assert.equal(document.openapi, '3.1.0');
    const operations = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { 'x-permission'?: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        operations.add(key);
        const rule = app.accessTable.get(key);
        if (rule?.permission) assert.equal(operation['x-permission'], rule.permission, key);
      }
    }
    for (const route of app.accessTable.keys()) assert.ok(operations.has(route), `${route} missing from /openapi.json`);
    assert.ok(operations.has('POST /auth/token'));
    assert.match(document.info.description, /ACCESS_DENIED/);
    // A file route documents its binary success and its JSON errors, so generated clients agree with it.
    const zip = document.paths['/{tenantName}/{instanceName}/export/formations/{version}/assessments'].get.responses;
    assert.deepEqual(Object.keys(zip['200'].content), ['application/zip']);
    assert.deepEqual(Object.keys(zip['404'].content), ['application/json']);
    // A body the route reads itself (a multipart form) is documented, with its file parts.
    const upload = document.paths['/{tenantName}/{instanceName}/patients/{patientId}/document-summary/{summaryId}/files'].post;
    assert.deepEqual(upload.requestBody.content['multipart/form-data'].schema.properties.files.items, {
      type: 'string',
      format: 'binary',
    });
    const inbound = document.paths['/{tenantName}/{instanceName}/patients/{patientId}/chat/inbound'].post.requestBody.content;
    assert.deepEqual(Object.keys(inbound).sort(), ['application/json', 'multipart/form-data']);
    // A query parameter the server defaults (page, size) is optional to send.
    const paged = document.paths['/{tenantName}/{instanceName}/patients'].get.parameters as {
      name: string;
      required?: boolean;
    }[];
    for (const name of ['page', 'size']) assert.equal(paged.find((p) => p.name === name)?.required ?? false, false, name);
    const docs = await anonymous.get('/docs/');
    assert.equal(docs.status, 200);
    assert.match(docs.text, /swagger/i);
  });

  test('every permission in the catalog is used by some route', () => {
    // A route's own permission, or the second one some of its calls need (`alsoNeeds`, in the docs too).
    const used = new Set<string>(
      [...app.accessTable.values()].flatMap((rule) => [rule.permission ?? [], rule.alsoNeeds?.permission ?? []].flat()),
    );
    for (const permission of Object.keys(app.catalogs.permissions)) assert.ok(used.has(permission as never), permission);
  });
});
