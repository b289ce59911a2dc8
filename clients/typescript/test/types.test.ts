import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { startApp } from '../../../src/test/harness.ts';
import { schemaFile, typesOf } from '../scripts/generate.ts';

// CI's check that the committed types are the server's: a route whose schema changed without
// `npm run client:types` fails here.
test('src/schema.ts is what the server’s /openapi.json generates (else: npm run client:types)', async () => {
  const app = await startApp();
  const response = await app.server.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  const expected = await typesOf(response.json());
  const committed = fs.readFileSync(schemaFile, 'utf8');
  if (committed === expected) return;
  const committedLines = committed.split('\n');
  const expectedLines = expected.split('\n');
  const first = expectedLines.findIndex((line, index) => line !== committedLines[index]);
  assert.fail(
    `clients/typescript/src/schema.ts is out of date: run \`npm run client:types\` and commit the result.\n` +
      `First difference at line ${first + 1}:\n  committed: ${committedLines[first]}\n  generated: ${expectedLines[first]}`,
  );
});
