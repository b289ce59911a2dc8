import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { RequestLog, requestLogSerializers } from './request-log.ts';

test('a request is logged once, by its route pattern, status and time, never its URL', async () => {
  const logs: Record<string, any>[] = [];
  const server = Fastify({
    logger: {
      level: 'info',
      serializers: requestLogSerializers,
      stream: { write: (line: string) => logs.push(JSON.parse(line)) },
    },
    logController: new RequestLog(),
  });
  server.get('/:tenantName/patients/:patientId', async () => ({ ok: true }));
  await server.ready();
  const response = await server.inject({ method: 'GET', url: '/acme/patients/Jane-Doe?search=Jane' });
  assert.equal(response.statusCode, 200);
  const lines = logs.filter((line) => line.reqId !== undefined);
  assert.equal(lines.length, 1, JSON.stringify(logs));
  const [line] = lines;
  assert.equal(line!.msg, 'request completed');
  assert.deepEqual(line!.req, { id: line!.reqId, method: 'GET', route: '/:tenantName/patients/:patientId' });
  assert.deepEqual(line!.res, { statusCode: 200 });
  assert.equal(typeof line!.responseTime, 'number');
  assert.ok(logs.every((entry) => !JSON.stringify(entry).includes('Jane')));
  await server.close();
});
