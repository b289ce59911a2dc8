import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { assertCode, createPatient, createTestTenant, startApp } from '../test/harness.ts';
import { SchemaCompilation } from './schema-compilation.ts';
import { validatorCompiler } from './validation.ts';

const app = await startApp();

test("a route's schemas are compiled at its first request; every route's compile", async () => {
  const t = await createTestTenant(app);
  const patient = await createPatient(t);
  // Its first request compiles the route's checks and its answer's serializer, which then work.
  assertCode(await t.api.get(`${t.base}/patients?size=abc`), 400, 'VALIDATION_ERROR');
  const read = await t.api.get(`${t.base}/patients/${patient.id}`);
  assert.equal(read.status, 200, read.text);
  assert.equal(read.body.firstName, 'Ada');

  // Start-up left the rest pending: every one of them compiles, once.
  const compiled = app.schemas.compileAll();
  assert.ok(compiled > 300, `${compiled} schemas were still to compile`);
  assert.equal(app.schemas.compileAll(), 0);
  const again = await t.api.get(`${t.base}/patients/${patient.id}`);
  assert.deepEqual(again.body, read.body);
});

test('a schema that cannot compile is found by compileAll, though the server started', async () => {
  const schemas = new SchemaCompilation();
  const server = Fastify({ schemaController: { compilersFactory: { buildSerializer: schemas.serializers() } } });
  server.setValidatorCompiler(schemas.validators(validatorCompiler));
  server.get(
    '/broken',
    { schema: { response: { 200: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } } } },
    async () => ({ a: 1 }),
  );
  await server.ready();
  assert.throws(() => schemas.compileAll(), /missing/);
  await server.close();
});
