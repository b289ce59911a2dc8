import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { ApiError, handleError } from './errors.ts';

/** The renderer on a bare Fastify, so a route can fail the ways a bug or the database would. */
async function failingServer() {
  const logs: string[] = [];
  const server = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => logs.push(line) } } });
  server.setErrorHandler(handleError);
  server.get('/bug', async () => {
    throw new Error('duplicate key value violates unique constraint: (mrn)=(MRN-4411) for Jane Doe');
  });
  server.get('/unique', async () => {
    throw Object.assign(new Error('Key (mrn)=(MRN-1) already exists'), { code: '23505', constraint: 'patients_mrn_key' });
  });
  server.get('/too-long', async () => {
    throw Object.assign(new Error('value too long for type character varying(5)'), { code: '22001' });
  });
  server.get('/lost-connection', async () => {
    throw Object.assign(new Error('terminating connection due to administrator command (host db.internal)'), { code: '57P01' });
  });
  server.get('/refused', async () => {
    throw new AggregateError([Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })]);
  });
  server.get('/terminated', async () => {
    throw new Error('Connection terminated unexpectedly');
  });
  server.get('/missing-parent', async () => {
    throw Object.assign(new Error('insert or update on table "contacts" violates foreign key constraint'), {
      code: '23503',
      detail: 'Key (tenant_id, patient_id)=(a, b) is not present in table "patients".',
    });
  });
  server.get('/missing-reference', async () => {
    throw Object.assign(new Error('violates foreign key constraint'), {
      code: '23503',
      detail: 'Key (tenant_id, user_id)=(a, Jane Doe) is not present in table "users".',
    });
  });
  // A Citus coordinator passes its worker's error on without the constraint and table fields,
  // naming the shard's (its table's name and the shard id) in the message and the detail.
  server.get('/unique-on-a-shard', async () => {
    throw Object.assign(new Error('duplicate key value violates unique constraint "patients_mrn_key_102040"'), {
      code: '23505',
      detail: 'Key (tenant_id, mrn)=(a, MRN-1) already exists.',
    });
  });
  server.get('/missing-parent-on-a-shard', async () => {
    throw Object.assign(
      new Error('insert or update on table "contacts_102078" violates foreign key constraint "contacts_patient_fkey_102078"'),
      {
        code: '23503',
        detail: 'Key (tenant_id, patient_id)=(a, b) is not present in table "patients_102040".',
      },
    );
  });
  server.get('/deadlock', async () => {
    throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
  });
  server.get('/known', async () => {
    throw new ApiError('PATIENT_NOT_FOUND', { id: 'x' });
  });
  return { server, logs };
}

test('a 500 says nothing of its cause, and the log keeps the stack without the message', async () => {
  const { server, logs } = await failingServer();
  const response = await server.inject({ method: 'GET', url: '/bug' });
  assert.equal(response.statusCode, 500);
  const [error] = response.json();
  assert.equal(error.errorCode, 'INTERNAL_ERROR');
  assert.equal(error.message, 'Internal server error');
  // Only the request's id, which finds the log line.
  assert.deepEqual(Object.keys(error.details), ['requestId']);
  assert.equal(typeof error.details.requestId, 'string');
  assert.ok(!response.body.includes('Jane'));
  assert.ok(logs.length > 0);
  assert.ok(
    logs.every((line) => !line.includes('Jane') && !line.includes('MRN-4411')),
    logs.join('\n'),
  );
});

test('database errors that bad input causes become 4xx', async () => {
  const { server } = await failingServer();
  const duplicate = await server.inject({ method: 'GET', url: '/unique' });
  assert.equal(duplicate.statusCode, 409);
  assert.equal(duplicate.json()[0].errorCode, 'DUPLICATE_VALUE');
  assert.ok(!duplicate.body.includes('MRN-1'));
  const tooLong = await server.inject({ method: 'GET', url: '/too-long' });
  assert.equal(tooLong.statusCode, 400);
  const known = await server.inject({ method: 'GET', url: '/known' });
  assert.equal(known.statusCode, 404);
  assert.deepEqual(known.json()[0].details, { id: 'x' });
});

test('a lost or refused database connection is 503 SERVICE_UNAVAILABLE with Retry-After, logged by code only', async () => {
  const { server, logs } = await failingServer();
  for (const url of ['/lost-connection', '/refused', '/terminated']) {
    const response = await server.inject({ method: 'GET', url });
    assert.equal(response.statusCode, 503, url);
    assert.equal(response.json()[0].errorCode, 'SERVICE_UNAVAILABLE');
    assert.equal(response.headers['retry-after'], '5');
  }
  assert.ok(
    logs.every((line) => !line.includes('db.internal') && !line.includes('10.0.0.5')),
    logs.join('\n'),
  );
});

test('foreign key violations and deadlocks are 4xx, naming the table but never the values', async () => {
  const { server } = await failingServer();
  const parent = await server.inject({ method: 'GET', url: '/missing-parent' });
  assert.equal(parent.statusCode, 404);
  assert.equal(parent.json()[0].errorCode, 'PATIENT_NOT_FOUND');
  const reference = await server.inject({ method: 'GET', url: '/missing-reference' });
  assert.equal(reference.statusCode, 400);
  assert.equal(reference.json()[0].errorCode, 'REFERENCED_RECORD_NOT_FOUND');
  assert.deepEqual(reference.json()[0].details, { table: 'users' });
  assert.ok(!reference.body.includes('Jane'));
  const deadlock = await server.inject({ method: 'GET', url: '/deadlock' });
  assert.equal(deadlock.statusCode, 409);
  assert.equal(deadlock.headers['retry-after'], '1');
});

test('violations a Citus coordinator passes on name the tables and constraints, not their shards', async () => {
  const { server } = await failingServer();
  const duplicate = await server.inject({ method: 'GET', url: '/unique-on-a-shard' });
  assert.equal(duplicate.statusCode, 409);
  assert.deepEqual(duplicate.json()[0].details, { constraint: 'patients_mrn_key' });
  assert.ok(!duplicate.body.includes('MRN-1'));
  const parent = await server.inject({ method: 'GET', url: '/missing-parent-on-a-shard' });
  assert.equal(parent.statusCode, 404);
  assert.equal(parent.json()[0].errorCode, 'PATIENT_NOT_FOUND');
});
