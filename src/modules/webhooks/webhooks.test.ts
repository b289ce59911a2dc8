import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { TestClock } from '../../test/clock.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  metaInfoKeys,
  startApp,
  type TestTenant,
} from '../../test/harness.ts';
import { type Receiver, startReceiver } from '../../test/receiver.ts';
import { DELIVERY_ATTEMPTS } from './deliver.ts';

/** Receivers listen on loopback, which webhooks may reach only when private addresses are allowed. */
// A receiver that hangs fails its attempt after a second (10 s in production): long enough that
// a busy test machine never fails a quick answer, short enough for the tests.
const env = { CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true', CAIRN_WEBHOOKS_TIMEOUT_MS: '1000' };
const clock = new TestClock();
const app = await startApp({}, { clock, env });
const HOUR = 60 * 60 * 1000;

/** A subscription to the care records' events (not the webhooks' own, which go to subscriptions of everything). */
async function subscribe(t: TestTenant, receiver: Receiver, body: Record<string, unknown> = {}) {
  const created = await t.api.post(`${t.admin}/webhooks`, {
    name: `hook-${randomUUID().slice(0, 8)}`,
    url: `${receiver.url}/hook`,
    eventEntities: ['PATIENT', 'TASK', 'USER'],
    ...body,
  });
  assert.equal(created.status, 201, created.text);
  return created.body as { id: string; secret: string; name: string };
}

/** The admin client's API with a token issued now (after the clock has moved past the old one's hour). */
async function freshApi(t: TestTenant): Promise<Api> {
  const { adminClient } = t;
  const issued = await app.services.tokens.issue({
    type: 'API_CLIENT',
    id: adminClient.id,
    tenantId: t.tenant.id,
    name: `API_CLIENT:${adminClient.name}`,
  });
  return new Api(app.server, issued.token);
}

/** The attempts of audit-webhook, newest first. */
async function attempts(t: TestTenant, query = '') {
  const response = await t.api.get(`${t.admin}/audit-webhook?size=100${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data as Record<string, any>[];
}

describe('webhook subscriptions', () => {
  test('create answers the secret once; get, list and patch never show it; delete', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    const created = await t.api.post(`${t.admin}/webhooks`, {
      name: 'care-events',
      title: 'Care events',
      url: `${receiver.url}/in`,
      instances: ['sandbox'],
      eventEntities: ['PATIENT', 'TASK'],
      eventSubtypes: [],
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 32);
    assert.deepEqual(created.body.instances, ['sandbox']);
    assert.equal(created.body.source, 'API');
    const { id } = created.body;

    const read = await t.api.get(`${t.admin}/webhooks/${id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.secret, undefined);
    const { secret: _secret, ...withoutSecret } = created.body;
    assert.deepEqual(read.body, withoutSecret);

    const list = await t.api.get(`${t.admin}/webhooks`);
    assert.deepEqual(Object.keys(list.body.metaInfo).sort(), metaInfoKeys);
    assert.deepEqual(
      list.body.data.map((hook: { id: string }) => hook.id),
      [id],
    );
    assert.ok(!list.text.includes('whsec_'));

    const patched = await t.api.patch(`${t.admin}/webhooks/${id}`, { eventEntities: null, title: 'All events' });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.eventEntities, []);
    assert.equal(patched.body.title, 'All events');
    assert.equal(patched.body.url, `${receiver.url}/in`);

    const rotated = await t.api.post(`${t.admin}/webhooks/${id}/secret`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, created.body.secret);

    assert.equal((await t.api.delete(`${t.admin}/webhooks/${id}`)).status, 200);
    assertCode(await t.api.get(`${t.admin}/webhooks/${id}`), 404, 'WEBHOOK_NOT_FOUND');
    const actions = (await auditOf(t, { entityType: 'WEBHOOK' })).map((entry) => entry.action).sort();
    assert.deepEqual(actions, ['WEBHOOK_CREATED', 'WEBHOOK_DELETED', 'WEBHOOK_SECRET_ROTATED', 'WEBHOOK_UPDATED']);
  });

  test('400 for a URL that is not http(s), names unknown entities, subtypes or instances; 409 for a name taken', async () => {
    const t = await createTestTenant(app);
    const url = 'https://receiver.example/hook';
    for (const bad of ['ftp://receiver.example/hook', 'not a url', 'https://user:pass@receiver.example/']) {
      assertCode(await t.api.post(`${t.admin}/webhooks`, { name: 'a', url: bad }), 400, 'WEBHOOK_URL_NOT_ALLOWED', bad);
    }
    assertValidation(await t.api.post(`${t.admin}/webhooks`, { name: 'a' }), 'body.url');
    assertValidation(
      await t.api.post(`${t.admin}/webhooks`, { name: 'a', url, eventEntities: ['PATIENTS'] }),
      'body.eventEntities.0',
    );
    assertValidation(
      await t.api.post(`${t.admin}/webhooks`, { name: 'a', url, eventSubtypes: ['TASK_EXPLODED'] }),
      'body.eventSubtypes.0',
    );
    assertValidation(await t.api.post(`${t.admin}/webhooks`, { name: 'a', url, instances: ['nowhere'] }), 'body.instances.0');
    assertValidation(await t.api.post(`${t.admin}/webhooks`, { name: 'a', url, eventEntities: 'PATIENT' }), 'body.eventEntities');
    assert.equal((await t.api.post(`${t.admin}/webhooks`, { name: 'a', url })).status, 201);
    assertCode(await t.api.post(`${t.admin}/webhooks`, { name: 'a', url }), 409, 'DUPLICATE_VALUE');
    assertCode(await t.api.get(`${t.admin}/webhooks/${randomUUID()}`), 404, 'WEBHOOK_NOT_FOUND');
    assertValidation(await t.api.get(`${t.admin}/webhooks/nope`), 'params.webhookId');
  });

  test('needs a token, WEBHOOK_READ to read and WEBHOOK_WRITE to write; another tenant’s webhooks are 404', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const hook = (await t.api.post(`${t.admin}/webhooks`, { name: 'a', url: 'https://receiver.example/hook' })).body;
    assertCode(await t.anonymous.get(`${t.admin}/webhooks`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['WEBHOOK_READ']);
    assert.equal((await reader.get(`${t.admin}/webhooks/${hook.id}`)).status, 200);
    assertCode(
      await reader.post(`${t.admin}/webhooks`, { name: 'b', url: 'https://receiver.example/hook' }),
      403,
      'ACCESS_DENIED',
    );
    assertCode(await reader.delete(`${t.admin}/webhooks/${hook.id}`), 403, 'ACCESS_DENIED');
    assertCode(await other.api.get(`${other.admin}/webhooks/${hook.id}`), 404, 'WEBHOOK_NOT_FOUND');
    assertCode(await other.api.patch(`${other.admin}/webhooks/${hook.id}`, { title: 'x' }), 404, 'WEBHOOK_NOT_FOUND');
    assertCode(await other.api.delete(`${other.admin}/webhooks/${hook.id}`), 404, 'WEBHOOK_NOT_FOUND');
    assert.equal((await t.api.get(`${t.admin}/webhooks/${hook.id}`)).status, 200);
    assertCode(await t.api.get(`${other.admin}/webhooks`), 403, 'TENANT_ACCESS_DENIED');
  });
});

describe('delivery', () => {
  test("a delivery about a patient is in the access log (the subscription saw the patient's id); one about no patient is not", async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    const hook = await subscribe(t, receiver);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const user = await t.api.post(`${t.admin}/users`, {
      username: 'nurse',
      email: 'nurse@example.org',
      firstName: 'N',
      lastName: 'Urse',
    });
    assert.equal(user.status, 201, user.text);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 2);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    assert.equal(log.status, 200, log.text);
    // The create's own answer is recorded too; of the deliveries, only the patient's.
    const records = (log.body.data as Record<string, any>[]).filter((record) => record.actorType === 'WEBHOOK');
    assert.equal(records.length, 1, 'the USER event names no patient');
    const record = records[0]!;
    assert.deepEqual(
      [record.actorType, record.actorId, record.operation, record.resourceType, record.patientIds, record.outcome],
      ['WEBHOOK', hook.id, 'webhooks.deliver', 'PATIENT', [patient.id], 0],
    );
    assert.equal(record.recordIds[0], patient.id);
    assert.equal(record.instanceId, t.instance.id);
  });

  test("a change is POSTed signed as Standard Webhooks says, naming ids and never the patient's data", async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    const hook = await subscribe(t, receiver);
    const patient = await createPatient(t, { firstName: 'Zebedee', lastName: 'Quartermain', email: 'zq@example.org' });
    await app.jobs.drain();

    assert.equal(receiver.received.length, 1);
    const [request] = receiver.received;
    assert.equal(request!.path, '/hook');
    assert.equal(request!.headers['content-type'], 'application/json');
    // The specification's own verifier accepts it: the receiver's check, exactly.
    const payload = new Webhook(hook.secret).verify(request!.body, request!.headers) as Record<string, any>;
    assert.equal(request!.headers['webhook-id'], payload.id);
    assert.deepEqual(Object.keys(payload).sort(), [
      'actor',
      'details',
      'eventEntity',
      'eventSubtype',
      'id',
      'instanceName',
      'patientId',
      'recordId',
      'tenantName',
      'timestamp',
      'type',
    ]);
    assert.equal(payload.type, 'PATIENT_CREATED');
    assert.equal(payload.eventEntity, 'PATIENT');
    assert.equal(payload.eventSubtype, 'PATIENT_CREATED');
    assert.equal(payload.recordId, patient.id);
    assert.equal(payload.patientId, patient.id);
    assert.equal(payload.tenantName, t.tenant.name);
    assert.equal(payload.instanceName, 'sandbox');
    assert.deepEqual(payload.actor, { type: 'API_CLIENT', id: t.adminClient.id });
    assert.equal(payload.timestamp, clock.now().toISOString());
    assert.ok(payload.details.changedFields.includes('firstName'));
    for (const phi of ['Zebedee', 'Quartermain', 'zq@example.org']) assert.ok(!request!.body.includes(phi), phi);
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(request!.body, request!.headers));

    const [attempt] = await attempts(t);
    assert.equal(attempt!.status, 'DELIVERED');
    assert.equal(attempt!.statusCode, 'OK');
    assert.equal(attempt!.httpStatus, 200);
    assert.equal(attempt!.attempt, 1);
    assert.equal(attempt!.webhookName, hook.name);
    assert.equal(attempt!.eventSubtype, 'PATIENT_CREATED');
    assert.equal(attempt!.url, `${receiver.url}/hook`);
    assert.ok(Number.isInteger(attempt!.latencyMs));
    assert.deepEqual(attempt!.payload, payload);
  });

  test('a subscription gets only the instances, entities and subtypes it names; domain subtypes too', async () => {
    const t = await createTestTenant(app);
    const all = await startReceiver();
    const statuses = await startReceiver();
    await subscribe(t, all);
    await subscribe(t, statuses, { eventSubtypes: ['TASK_STATUS_CHANGED'] });
    const patient = await createPatient(t);
    const made = await t.api.post(`${t.admin}/users`, {
      username: 'nurse',
      email: 'nurse@example.org',
      firstName: 'N',
      lastName: 'Urse',
    });
    assert.equal(made.status, 201, made.text);
    const user = made.body;
    const task = (
      await t.api.post(`${t.base}/tasks`, {
        name: 'Call',
        status: 'TODO',
        priority: 'LOW',
        assignee: { id: user.id },
        patient: { id: patient.id },
      })
    ).body;
    assert.equal((await t.api.patch(`${t.base}/tasks/${task.id}`, { status: 'COMPLETED' })).status, 200);
    await app.jobs.drain();
    // Different records go in parallel; one record's events go in order.
    assert.deepEqual(all.received.map((request) => request.json.type).sort(), [
      'PATIENT_CREATED',
      'TASK_CREATED',
      'TASK_STATUS_CHANGED',
      'TASK_UPDATED',
      'USER_CREATED',
    ]);
    assert.deepEqual(
      all.received.filter((request) => request.json.recordId === task.id).map((request) => request.json.type),
      ['TASK_CREATED', 'TASK_UPDATED', 'TASK_STATUS_CHANGED'],
    );
    assert.deepEqual(
      statuses.received.map((request) => [request.json.type, request.json.recordId, request.json.details]),
      [['TASK_STATUS_CHANGED', task.id, { status: 'COMPLETED', previousStatus: 'TODO' }]],
    );
    // USER events are the tenant's, outside any instance.
    assert.equal(all.received.find((request) => request.json.type === 'USER_CREATED')!.json.instanceName, null);
  });

  test('a 500 and a timeout are retried with backoff until a 2xx; every attempt is in audit-webhook', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    receiver.answer(500, { status: 200, delayMs: 3000 });
    await subscribe(t, receiver);
    await createPatient(t);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 1);
    // Not due yet: the first retry waits 2.5 to 5 seconds.
    await app.jobs.drain();
    assert.equal(receiver.received.length, 1);
    clock.advance(5_000);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 2);
    clock.advance(10_000);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 3);
    const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    assert.equal(ids.size, 1, 'a retry is the same message');
    const log = (await attempts(t)).reverse();
    assert.deepEqual(
      log.map((entry) => [entry.attempt, entry.status, entry.statusCode, entry.httpStatus, entry.error]),
      [
        [1, 'FAILED', 'INTERNAL_SERVER_ERROR', 500, null],
        [2, 'FAILED', null, null, 'TIMEOUT'],
        [3, 'DELIVERED', 'OK', 200, null],
      ],
    );
    assert.ok(log[1]!.latencyMs >= 900);
    assert.deepEqual(
      (await attempts(t, '&status=FAILED')).map((entry) => entry.attempt),
      [2, 1],
    );
  });

  test("a record's events arrive in order: a failing one holds back the record's later ones, not other records'", async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    await subscribe(t, receiver, { eventEntities: ['PATIENT'] });
    receiver.answer(503);
    const first = await createPatient(t);
    await app.jobs.drain();
    assert.equal((await t.api.patch(`${t.base}/patients/${first.id}`, { middleName: 'A' })).status, 200);
    assert.equal((await t.api.patch(`${t.base}/patients/${first.id}`, { middleName: 'B' })).status, 200);
    const second = await createPatient(t);
    await app.jobs.drain();
    // The first record's create failed and waits for its retry; its updates wait behind it.
    assert.deepEqual(
      receiver.received.map((request) => [request.json.recordId, request.json.type]),
      [
        [first.id, 'PATIENT_CREATED'],
        [second.id, 'PATIENT_CREATED'],
      ],
    );
    clock.advance(10_000);
    await app.jobs.drain();
    assert.deepEqual(
      receiver.received.slice(2).map((request) => [request.json.recordId, request.json.type]),
      [
        [first.id, 'PATIENT_CREATED'],
        [first.id, 'PATIENT_UPDATED'],
        [first.id, 'PATIENT_UPDATED'],
      ],
    );
    const updates = receiver.received.slice(3).map((request) => request.json.timestamp);
    assert.deepEqual(updates, [...updates].sort());
  });

  test('out of attempts the job is DEAD and the delivery FAILED; an administrator requeues it, and redelivers', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver(500);
    const hook = await subscribe(t, receiver);
    await createPatient(t);
    for (let attempt = 0; attempt < DELIVERY_ATTEMPTS; attempt++) {
      await app.jobs.drain();
      clock.advance(5 * HOUR);
    }
    // Days have passed: a token of today.
    t.api = await freshApi(t);
    assert.equal(receiver.received.length, DELIVERY_ATTEMPTS);
    const dead = await t.api.get(`${t.admin}/jobs?state=DEAD`);
    assert.equal(dead.status, 200, dead.text);
    assert.equal(dead.body.data.length, 1);
    const [job] = dead.body.data;
    assert.equal(job.kind, 'webhooks.deliver');
    assert.equal(job.attempts, DELIVERY_ATTEMPTS);
    assert.equal(job.maxAttempts, DELIVERY_ATTEMPTS);
    assert.equal(job.lastError, 'INTERNAL_SERVER_ERROR');
    assert.equal((await t.api.get(`${t.admin}/jobs?state=QUEUED`)).body.data.length, 0);

    receiver.otherwise(204);
    const requeued = await t.api.post(`${t.admin}/jobs/${job.id}/retry`);
    assert.equal(requeued.status, 200, requeued.text);
    assert.equal(requeued.body.state, 'QUEUED');
    assert.equal(requeued.body.attempts, 0);
    assertCode(await t.api.post(`${t.admin}/jobs/${job.id}/retry`), 409, 'JOB_NOT_DEAD');
    await app.jobs.drain();
    assert.equal(receiver.received.length, DELIVERY_ATTEMPTS + 1);
    const [last] = await attempts(t);
    assert.equal(last!.status, 'DELIVERED');
    assert.equal(last!.statusCode, 'NO_CONTENT');
    assert.equal(last!.attempt, DELIVERY_ATTEMPTS + 1);
    assertCode(await t.api.post(`${t.admin}/jobs/${randomUUID()}/retry`), 404, 'JOB_NOT_FOUND');

    // A delivered event sent again by hand, with the same webhook-id.
    const redelivered = await t.api.post(`${t.admin}/webhooks/${hook.id}/deliveries/${last!.deliveryId}/retry`);
    assert.equal(redelivered.status, 202, redelivered.text);
    assert.equal(redelivered.body.state, 'PENDING');
    await app.jobs.drain();
    assert.equal(receiver.received.length, DELIVERY_ATTEMPTS + 2);
    assert.equal(receiver.received.at(-1)!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
    assertCode(
      await t.api.post(`${t.admin}/webhooks/${hook.id}/deliveries/${randomUUID()}/retry`),
      404,
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
    const other = await createTestTenant(app);
    assertCode(await other.api.post(`${other.admin}/jobs/${job.id}/retry`), 404, 'JOB_NOT_FOUND');
    assert.equal((await other.api.get(`${other.admin}/jobs`)).body.data.length, 0);
  });

  test('a redelivery by hand of a delivery waiting out its backoff sends it now, once', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver(500);
    const hook = await subscribe(t, receiver, { eventEntities: ['PATIENT'] });
    await createPatient(t);
    await app.jobs.drain();
    const [failed] = await attempts(t);
    assert.equal(failed!.status, 'FAILED');
    receiver.otherwise(204);
    const retried = await t.api.post(`${t.admin}/webhooks/${hook.id}/deliveries/${failed!.deliveryId}/retry`);
    assert.equal(retried.status, 202, retried.text);
    assert.equal(retried.body.state, 'PENDING');
    await app.jobs.drain();
    assert.deepEqual(
      (await attempts(t)).map((entry) => [entry.attempt, entry.status]),
      [
        [2, 'DELIVERED'],
        [1, 'FAILED'],
      ],
    );
    clock.advance(HOUR);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 2, 'the backoff job was the one sent, not a second');
  });

  test("a redelivery by hand replaces the delivery's DEAD job, and waits behind the record's deliveries under way", async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver(500);
    const hook = await subscribe(t, receiver, { eventEntities: ['PATIENT'] });
    const patient = await createPatient(t);
    for (let attempt = 0; attempt < DELIVERY_ATTEMPTS; attempt++) {
      await app.jobs.drain();
      clock.advance(5 * HOUR);
    }
    t.api = await freshApi(t);
    const [dead] = await attempts(t);
    assert.equal(dead!.attempt, DELIVERY_ATTEMPTS);
    // The record changes again; that delivery fails once and waits for its retry.
    assert.equal((await t.api.patch(`${t.base}/patients/${patient.id}`, { middleName: 'A' })).status, 200);
    await app.jobs.drain();
    const redelivered = await t.api.post(`${t.admin}/webhooks/${hook.id}/deliveries/${dead!.deliveryId}/retry`);
    assert.equal(redelivered.status, 202, redelivered.text);
    assert.equal((await t.api.get(`${t.admin}/jobs?state=DEAD`)).body.data.length, 0);
    assert.equal((await t.api.get(`${t.admin}/jobs?state=WAITING`)).body.data.length, 1);

    receiver.otherwise(204);
    clock.advance(10_000);
    await app.jobs.drain();
    assert.deepEqual(
      receiver.received.slice(DELIVERY_ATTEMPTS).map((request) => request.json.type),
      ['PATIENT_UPDATED', 'PATIENT_UPDATED', 'PATIENT_CREATED'],
    );

    // The lists sort by their time, either way; by nothing else.
    const oldest = await t.api.get(`${t.admin}/audit-webhook?sort=createdAt,asc&size=1`);
    assert.equal(oldest.body.data[0].attempt, 1);
    assert.equal(oldest.body.data[0].eventSubtype, 'PATIENT_CREATED');
    assertCode(await t.api.get(`${t.admin}/audit-webhook?sort=url,asc`), 400, 'INVALID_SORT');
    assertCode(await t.api.get(`${t.admin}/jobs?sort=kind,asc`), 400, 'INVALID_SORT');
    assertCode(await t.api.get(`${t.admin}/webhooks?sort=url,asc`), 400, 'INVALID_SORT');
    assert.equal((await t.api.get(`${t.admin}/webhooks?sort=name,desc`)).status, 200);
  });

  test('two workers on one queue never deliver one attempt twice', async () => {
    const second = await startApp({}, { clock, env });
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    await subscribe(t, receiver);
    for (let index = 0; index < 12; index++) await createPatient(t, { lastName: `Patient ${index}` });
    await Promise.all([app.jobs.drain(), second.jobs.drain(), app.jobs.drain(), second.jobs.drain()]);
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    assert.equal(ids.length, 12);
    assert.equal(new Set(ids).size, 12);
    assert.ok((await attempts(t)).every((entry) => entry.attempt === 1 && entry.status === 'DELIVERED'));
  });

  test('a restart in the middle of a retry schedule loses nothing', async () => {
    const before = await startApp({}, { clock, env });
    const t = await createTestTenant(before);
    const receiver = await startReceiver();
    receiver.answer(502);
    await subscribe(t, receiver);
    await createPatient(t);
    await before.jobs.drain();
    assert.equal(receiver.received.length, 1);
    await before.server.close();

    const after = await startApp({}, { clock, env });
    clock.advance(10_000);
    await after.jobs.drain();
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1]!.json.type, 'PATIENT_CREATED');
    const log = await new Api(after.server, t.api.token).get(`${t.admin}/audit-webhook`);
    assert.deepEqual(
      log.body.data.map((entry: { status: string }) => entry.status),
      ['DELIVERED', 'FAILED'],
    );
  });

  test('deliveries reach only allowed addresses: a loopback receiver is refused without CAIRN_WEBHOOKS_ALLOW_PRIVATE', async () => {
    const strict = await startApp({}, { clock, env: { CAIRN_WEBHOOKS_TIMEOUT_MS: '5000' } });
    const t = await createTestTenant(strict);
    const receiver = await startReceiver();
    assertCode(await t.api.post(`${t.admin}/webhooks`, { name: 'loop', url: receiver.url }), 400, 'WEBHOOK_URL_NOT_ALLOWED');
    // A name is resolved when the delivery goes; every address it resolves to must be public.
    const hook = await t.api.post(`${t.admin}/webhooks`, { name: 'named', url: `http://localhost:${receiver.port}/hook` });
    assert.equal(hook.status, 201, hook.text);
    await createPatient(t);
    await strict.jobs.drain();
    assert.equal(receiver.received.length, 0);
    const [attempt] = await attempts(t);
    assert.equal(attempt!.status, 'FAILED');
    assert.equal(attempt!.error, 'ADDRESS_NOT_ALLOWED');
  });
});

describe("the formation's webhooks", () => {
  async function publish(t: TestTenant, webhooks: unknown[]) {
    const current = (await t.api.get(`${t.base}/formations/current`)).body.formation;
    const draft = await t.api.put(`${t.base}/formations/draft`, { ...current, webhooks });
    assert.equal(draft.status, 200, draft.text);
    return t.api.post(`${t.base}/formations/draft/publish`);
  }

  test('publishing registers them for its instance; they are changed there, not through the admin routes', async () => {
    // Receivers' verifiers accept a timestamp within 5 minutes of theirs: back to the real time.
    clock.set(new Date());
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    const published = await publish(t, [
      { name: 'from-formation', url: `${receiver.url}/formation`, eventEntities: ['PATIENT'] },
    ]);
    assert.equal(published.status, 200, published.text);
    const listed = (await t.api.get(`${t.admin}/webhooks?source=FORMATION`)).body.data;
    assert.equal(listed.length, 1);
    const [hook] = listed;
    assert.deepEqual(
      [hook.name, hook.source, hook.instances, hook.eventEntities],
      ['from-formation', 'FORMATION', ['sandbox'], ['PATIENT']],
    );
    assertCode(await t.api.patch(`${t.admin}/webhooks/${hook.id}`, { title: 'x' }), 409, 'WEBHOOK_FROM_FORMATION');
    assertCode(await t.api.delete(`${t.admin}/webhooks/${hook.id}`), 409, 'WEBHOOK_FROM_FORMATION');
    // Its secret was made at publish and never shown: rotating it is how one learns it.
    const { secret } = (await t.api.post(`${t.admin}/webhooks/${hook.id}/secret`)).body;
    await createPatient(t);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 1);
    assert.equal(
      (new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as { type: string }).type,
      'PATIENT_CREATED',
    );

    // Published again with another URL, then without it: changed, then gone.
    assert.equal((await publish(t, [{ name: 'from-formation', url: `${receiver.url}/moved` }])).status, 200);
    assert.equal((await t.api.get(`${t.admin}/webhooks/${hook.id}`)).body.url, `${receiver.url}/moved`);
    assert.equal((await publish(t, [])).status, 200);
    assertCode(await t.api.get(`${t.admin}/webhooks/${hook.id}`), 404, 'WEBHOOK_NOT_FOUND');
  });

  test('publishing refuses a webhook whose URL, entities or subtypes are wrong, or whose name is used twice', async () => {
    const t = await createTestTenant(app);
    const refused = await publish(t, [
      { name: 'a', url: 'ftp://example.org/in' },
      { name: 'a', url: 'https://example.org/in', eventEntities: ['NOPE'], eventSubtypes: ['NOPE_HAPPENED'] },
    ]);
    assertCode(refused, 400, 'FORMATION_INVALID');
    const paths = (refused.body[0].details.errors as { path: string }[]).map((error) => error.path).sort();
    assert.deepEqual(paths, ['webhooks.0.url', 'webhooks.1.eventEntities', 'webhooks.1.eventSubtypes', 'webhooks.1.name']);
    assert.equal((await t.api.get(`${t.admin}/webhooks`)).body.data.length, 0);
  });
});
