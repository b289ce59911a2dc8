import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  CairnError,
  dataAndMetaItems,
  exportItems,
  exportPages,
  pageObjectItems,
  retryAfterMs,
  tokenPageItems,
  unwrap,
} from '../src/index.ts';
import { clientOf, demoTenant, listening } from './cairn.ts';

/**
 * The hand-written layer against a listening Cairn: signing in, tokens kept and renewed, retries
 * (429, 503, 409, a dropped connection) with one Idempotency-Key per call, and every paging shape.
 */

/** The server's clock runs `skew` ahead of the real one: a test moves it past a token's hour. */
let skew = 0;
const server = await listening({}, { clock: { now: () => new Date(Date.now() + skew) }, env: { CAIRN_EXPORT_SETTLE_MS: '0' } });
/** One tenant for the tests of signing in and retries; the paging tests make their own. */
const { t, at, credentials } = await demoTenant(server);

interface Sent {
  method: string;
  path: string;
  status: number | 'dropped';
  idempotencyKey: string | null;
  authorization: string | null;
}

/**
 * A fetch that records what the client sent and lets a test answer in the server's place:
 * `plan` returns a Response to answer with, 'drop' to fail before the server sees the request,
 * 'drop-after' to forward it and then fail as if the connection broke before the answer came,
 * or undefined to forward it.
 */
function recording(plan: (request: Request, index: number) => Response | 'drop' | 'drop-after' | undefined = () => undefined) {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const entry: Sent = {
      method: request.method,
      path: new URL(request.url).pathname,
      status: 'dropped',
      idempotencyKey: request.headers.get('idempotency-key'),
      authorization: request.headers.get('authorization'),
    };
    sent.push(entry);
    const action = plan(request, sent.length - 1);
    if (action === 'drop') throw new TypeError('fetch failed');
    if (action instanceof Response) {
      entry.status = action.status;
      return action;
    }
    const response = await globalThis.fetch(request);
    if (action === 'drop-after') {
      await response.arrayBuffer();
      throw new TypeError('fetch failed');
    }
    entry.status = response.status;
    return response;
  };
  return { fetch, sent, tokenRequests: () => sent.filter((one) => one.path === '/auth/token').length };
}

function errorAnswer(status: number, errorCode: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify([{ errorCode, componentType: 'REQUEST', message: errorCode, details: {}, date: '' }]), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const patientsPath = '/{tenantName}/{instanceName}/patients';

describe('signing in', () => {
  test('an API client: one token for many calls, fetched once even when calls start together', async () => {
    const { fetch, sent, tokenRequests } = recording();
    const cairn = clientOf(server, credentials, { fetch });
    const lists = await Promise.all([1, 2, 3].map(() => unwrap(cairn.GET(patientsPath, { params: { path: at } }))));
    for (const list of lists) assert.ok(Array.isArray(list.content));
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    assert.equal(tokenRequests(), 1);
    const token = sent[0]!;
    assert.equal(token.authorization, null, 'the token route carries no bearer token');
    assert.equal(token.idempotencyKey, null, 'nor an idempotency key');
    assert.ok(sent.slice(1).every((one) => one.authorization?.startsWith('Bearer ')));
  });

  test('a user with password access, by tenant name, username and password', async () => {
    const admin = clientOf(server, credentials);
    const user = await unwrap(
      admin.POST('/{tenantName}/admin/users', {
        params: { path: { tenantName: at.tenantName } },
        body: {
          username: 'casey.morgan',
          email: 'casey@example.org',
          firstName: 'Casey',
          lastName: 'Morgan',
          roles: [{ permissionName: 'care-coordinator', instanceName: at.instanceName }],
        },
      }),
    );
    await unwrap(
      admin.PUT('/{tenantName}/admin/users/{userName}/password', {
        params: { path: { tenantName: at.tenantName, userName: 'casey.morgan' } },
        body: { password: 'correct horse battery' },
      }),
    );
    const casey = clientOf(server, { tenantName: t.tenant.name, username: 'casey.morgan', password: 'correct horse battery' });
    const patient = await unwrap(
      casey.POST(patientsPath, { params: { path: at }, body: { firstName: 'Ada', lastName: 'Lovelace' } }),
    );
    assert.equal(patient.createdBy, user.id);
  });

  test('wrong credentials are a CairnError with the server’s code, asked once', async () => {
    const { fetch, tokenRequests } = recording();
    const cairn = clientOf(server, { ...credentials, secret: 'not-the-secret' }, { fetch });
    const error = await cairn.GET(patientsPath, { params: { path: at } }).catch((caught: unknown) => caught);
    assert.ok(error instanceof CairnError);
    assert.equal(error.status, 401);
    assert.equal(error.errorCode, 'INVALID_CLIENT_CREDENTIALS');
    assert.equal(tokenRequests(), 1);
  });
});

describe('token renewal', () => {
  test('a token near its expiry is renewed before it is sent', async () => {
    const { fetch, tokenRequests } = recording();
    let now = Date.now();
    const cairn = clientOf(server, credentials, { fetch, now: () => now, refreshBeforeExpiryMs: 60_000 });
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    now += 58 * 60_000;
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    assert.equal(tokenRequests(), 1, 'two minutes left: kept');
    now += 90_000;
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    assert.equal(tokenRequests(), 2, 'half a minute left: renewed first');
  });

  test('an early renewal that fails leaves the current token in use until it expires', async () => {
    const { fetch, sent, tokenRequests } = recording((request, index) =>
      index > 0 && request.url.endsWith('/auth/token')
        ? errorAnswer(429, 'TOO_MANY_REQUESTS', { 'retry-after': '300' })
        : undefined,
    );
    let now = Date.now();
    const cairn = clientOf(server, credentials, { fetch, now: () => now });
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    now += 59.5 * 60_000;
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    assert.equal(tokenRequests(), 2);
    assert.equal(sent.at(-1)!.authorization, sent[1]!.authorization, 'the first token, still valid');
    now += 60_000;
    const refused = await cairn.GET(patientsPath, { params: { path: at } }).catch((caught: unknown) => caught);
    assert.ok(refused instanceof CairnError && refused.status === 429, 'expired, and no new one to be had');
  });

  test('a token the server refuses (401 TOKEN_EXPIRED) is renewed once and the call repeated', async () => {
    const { fetch, sent, tokenRequests } = recording();
    const cairn = clientOf(server, credentials, { fetch });
    await unwrap(cairn.GET(patientsPath, { params: { path: at } }));
    // The server's hour passes; the client's clock still says the token is fresh.
    skew = 61 * 60_000;
    try {
      const created = await unwrap(
        cairn.POST(patientsPath, { params: { path: at }, body: { firstName: 'Ada', lastName: 'Lovelace' } }),
      );
      assert.ok(created.id);
    } finally {
      skew = 0;
    }
    assert.equal(tokenRequests(), 2);
    const posts = sent.filter((one) => one.method === 'POST' && one.path.endsWith('/patients'));
    assert.deepEqual(
      posts.map((one) => one.status),
      [401, 201],
    );
    assert.notEqual(posts[0]!.authorization, posts[1]!.authorization, 'the repeat carries the new token');
    assert.equal(posts[0]!.idempotencyKey, posts[1]!.idempotencyKey);
  });
});

describe('retries', () => {
  test('a write whose answer was lost is sent again with the same Idempotency-Key, and is done once', async () => {
    let dropped = false;
    const { fetch, sent } = recording((request) => {
      if (request.method !== 'POST' || dropped || !request.url.endsWith('/patients')) return undefined;
      dropped = true;
      return 'drop-after';
    });
    const cairn = clientOf(server, credentials, { fetch });
    const created = await cairn.POST(patientsPath, {
      params: { path: at },
      body: { firstName: 'Grace', lastName: 'Hopper', externalId: 'retried-write' },
    });
    assert.equal(created.response.status, 201);
    const posts = sent.filter((one) => one.method === 'POST' && one.path.endsWith('/patients'));
    assert.equal(posts.length, 2);
    assert.match(posts[0]!.idempotencyKey ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(posts[1]!.idempotencyKey, posts[0]!.idempotencyKey);
    // The server's idempotency: the repeat is the first answer again, and one patient exists.
    assert.equal(created.response.headers.get('idempotent-replayed'), 'true');
    const found = await unwrap(cairn.GET(patientsPath, { params: { path: at, query: { externalId: 'retried-write' } } }));
    assert.equal(found.totalElements, 1);
    assert.equal(found.content[0]!.id, created.data!.id);
    // Another call is another key.
    await unwrap(cairn.POST(patientsPath, { params: { path: at }, body: { firstName: 'Alan', lastName: 'Turing' } }));
    assert.notEqual(sent.at(-1)!.idempotencyKey, posts[0]!.idempotencyKey);
  });

  test('a read whose connection failed is sent again', async () => {
    const { fetch, sent } = recording((request, index) => (request.method === 'GET' && index === 1 ? 'drop' : undefined));
    const cairn = clientOf(server, credentials, { fetch });
    assert.ok((await unwrap(cairn.GET(patientsPath, { params: { path: at } }))).pageable);
    assert.deepEqual(
      sent.map((one) => one.status),
      [200, 'dropped', 200],
    );
  });

  test('429 from the token limit: the client waits out Retry-After, or answers at once when it is too long', async () => {
    const limited = await listening(
      {},
      // The block (the database's own time) must outlast the steps below on a busy machine: 5 s.
      { env: { CAIRN_TOKEN_LIMIT: '1', CAIRN_TOKEN_WINDOW_SECONDS: '60', CAIRN_TOKEN_BLOCK_SECONDS: '5' } },
    );
    // Another app on the same database, with its own limits, and a client of its own: the limit is the client's.
    const own = await t.clientWithRole('administrator');
    const credentials = { apiClient: own.clientKey, secret: own.secret };
    await unwrap(clientOf(limited, credentials).GET(patientsPath, { params: { path: at } }));

    // The second token request within the window is blocked for 5 s: over the impatient client's limit.
    const impatient = clientOf(limited, credentials, { retry: { maxRetryAfterMs: 500 } });
    const refused = await impatient.GET(patientsPath, { params: { path: at } }).catch((caught: unknown) => caught);
    assert.ok(refused instanceof CairnError);
    assert.equal(refused.status, 429);
    assert.equal(refused.errorCode, 'TOO_MANY_REQUESTS');

    const { fetch, sent } = recording();
    const patient = clientOf(limited, credentials, { fetch });
    const started = Date.now();
    await unwrap(patient.GET(patientsPath, { params: { path: at } }));
    const tokens = sent.filter((one) => one.path === '/auth/token');
    assert.deepEqual(
      tokens.map((one) => one.status),
      [429, 200],
    );
    assert.ok(Date.now() - started >= 900, `waited ${Date.now() - started} ms`);
  });

  test('503 with Retry-After is waited out; the repeat carries the same key', async () => {
    const { fetch, sent } = recording((request, index) =>
      request.method === 'POST' && index === 1 ? errorAnswer(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }) : undefined,
    );
    const cairn = clientOf(server, credentials, { fetch });
    const started = Date.now();
    await unwrap(cairn.POST(patientsPath, { params: { path: at }, body: { firstName: 'Ada', lastName: 'Lovelace' } }));
    assert.ok(Date.now() - started >= 900, `waited ${Date.now() - started} ms`);
    const posts = sent.filter((one) => one.method === 'POST' && one.path.endsWith('/patients'));
    assert.deepEqual(
      posts.map((one) => one.status),
      [503, 201],
    );
    assert.equal(posts[0]!.idempotencyKey, posts[1]!.idempotencyKey);
  });

  test('409 IDEMPOTENCY_KEY_IN_USE is retried with backoff; other conflicts and 422 are final', async () => {
    const answers: Record<number, Response> = {
      1: errorAnswer(409, 'IDEMPOTENCY_KEY_IN_USE'),
      2: errorAnswer(409, 'IDEMPOTENCY_KEY_IN_USE', { 'retry-after': '0' }),
      4: errorAnswer(409, 'DUPLICATE_VALUE'),
      5: errorAnswer(422, 'IDEMPOTENCY_KEY_MISMATCH'),
    };
    const { fetch, sent } = recording((_request, index) => answers[index]);
    const cairn = clientOf(server, credentials, { fetch });
    const body = { firstName: 'Ada', lastName: 'Lovelace' };
    assert.ok((await unwrap(cairn.POST(patientsPath, { params: { path: at }, body }))).id);
    assert.deepEqual(
      sent.map((one) => one.status),
      [200, 409, 409, 201],
    );
    assert.equal(new Set(sent.slice(1).map((one) => one.idempotencyKey)).size, 1);
    assert.equal((await cairn.POST(patientsPath, { params: { path: at }, body })).response.status, 409);
    assert.equal((await cairn.POST(patientsPath, { params: { path: at }, body })).response.status, 422);
    assert.equal(sent.length, 6);
  });

  test('retries stop after `retries`, answering the last refusal', async () => {
    const { fetch, sent } = recording((_request, index) => (index > 0 ? errorAnswer(429, 'TOO_MANY_REQUESTS') : undefined));
    const cairn = clientOf(server, credentials, { fetch, retry: { retries: 2 } });
    const answer = await cairn.GET(patientsPath, { params: { path: at } });
    assert.equal(answer.response.status, 429);
    assert.equal(sent.length, 1 + 3);
  });

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs('3', now), 3000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
  });
});

describe('paging to the end', () => {
  async function withPatients(count: number) {
    const tenant = await demoTenant(server);
    const cairn = clientOf(server, tenant.credentials);
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const patient = await unwrap(
        cairn.POST(patientsPath, {
          params: { path: tenant.at },
          body: { firstName: `Patient${index}`, lastName: 'Paged', phone: `+1415555${String(1000 + index)}` },
        }),
      );
      ids.push(patient.id);
    }
    return { ...tenant, cairn, ids };
  }
  /** One tenant with five patients (phones for the export's view), walked by every shape. */
  let paged: Awaited<ReturnType<typeof withPatients>>;
  before(async () => {
    paged = await withPatients(5);
  });

  async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
    const all: T[] = [];
    for await (const item of items) all.push(item);
    return all;
  }

  test('page objects (patients), two at a time', async () => {
    const { at, cairn, ids } = paged;
    let pages = 0;
    const patients = await collect(
      pageObjectItems((page) => {
        pages += 1;
        return unwrap(cairn.GET(patientsPath, { params: { path: at, query: { page, size: 2, sort: 'createdAt,asc' } } }));
      }),
    );
    assert.deepEqual(
      patients.map((patient) => patient.id),
      ids,
    );
    assert.equal(pages, 3);
  });

  test('data and meta (tasks), two at a time', async () => {
    const { at, cairn, ids } = paged;
    const user = await unwrap(
      cairn.POST('/{tenantName}/admin/users', {
        params: { path: { tenantName: at.tenantName } },
        body: {
          username: 'tasked',
          email: 'tasked@example.org',
          roles: [{ permissionName: 'care-coordinator', instanceName: at.instanceName }],
        },
      }),
    );
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      const task = await unwrap(
        cairn.POST('/{tenantName}/{instanceName}/tasks', {
          params: { path: at },
          body: {
            name: `Call ${index}`,
            status: 'TODO',
            priority: 'MEDIUM',
            assignee: { id: user.id },
            patient: { id: ids[0]! },
          },
        }),
      );
      made.push(task.id);
    }
    const tasks = await collect(
      dataAndMetaItems((page) =>
        unwrap(
          cairn.GET('/{tenantName}/{instanceName}/tasks', {
            params: { path: at, query: { page, size: 2, sort: 'createdAt,asc' } },
          }),
        ),
      ),
    );
    assert.deepEqual(
      tasks.map((task) => task.id),
      made,
    );
  });

  test('export cursors (PATIENT), two at a time; the last end resumes the walk', async () => {
    const { at, cairn, ids } = paged;
    const page = (start: string | undefined) =>
      unwrap(
        cairn.GET('/{tenantName}/{instanceName}/export/PATIENT', {
          params: { path: at, query: { pageSize: 2, ...(start === undefined ? {} : { start }) } },
        }),
      );
    const walked = await collect(exportPages(page));
    assert.ok(walked.length >= 3);
    assert.deepEqual(new Set(walked.flatMap((one) => one.data.map((patient) => patient.id))), new Set(ids));
    assert.equal(walked.at(-1)!.cursor.hasNext, false);
    // 002: the last end, sent again, answers at least the last record: nothing is lost between walks.
    const again = await collect(exportItems(page, walked.at(-1)!.cursor.end));
    assert.ok(again.some((patient) => patient.id === ids.at(-1)));
  });

  test('token pages (chat), newest first, two at a time', async () => {
    const { at, cairn, ids } = paged;
    const path = { ...at, patientId: ids[0]! };
    for (let index = 0; index < 5; index++) {
      await unwrap(
        cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/chat/inbound', {
          params: { path },
          body: { message: `message ${index}` },
        }),
      );
    }
    let pages = 0;
    const messages = await collect(
      tokenPageItems((pageToken) => {
        pages += 1;
        return unwrap(
          cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/chat', {
            params: { path, query: pageToken ? { pageToken } : { pageSize: 2 } },
          }),
        );
      }),
    );
    assert.deepEqual(
      messages.map((message) => message.message),
      ['message 4', 'message 3', 'message 2', 'message 1', 'message 0'],
    );
    assert.equal(pages, 3);
  });
});
