import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ConfigError, envDocumentation, loadConfig } from './config.ts';

test('defaults need no environment at all', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.databaseUrl, '');
  assert.ok(config.dataDir.endsWith('data'));
  assert.deepEqual(config.tokenLimit, { max: 100, failures: 10, windowSeconds: 300, blockSeconds: 300 });
  assert.equal(config.corsOrigins, '*');
});

test('values are converted and checked, and a bad one names itself', () => {
  const config = loadConfig({ PORT: '8080', CAIRN_DEMO: 'FALSE', CAIRN_CORS_ORIGINS: 'https://a.example, https://b.example' });
  assert.equal(config.port, 8080);
  assert.equal(config.demo.enabled, false);
  assert.deepEqual(config.corsOrigins, ['https://a.example', 'https://b.example']);
  assert.throws(
    () => loadConfig({ PORT: 'eighty' }),
    (error: Error) => error instanceof ConfigError && /PORT/.test(error.message),
  );
  assert.throws(() => loadConfig({ CAIRN_JWT_SECRET: 'short' }), /CAIRN_JWT_SECRET/);
  assert.throws(() => loadConfig({ CAIRN_DEMO_CLIENT: 'key-only' }), /CAIRN_DEMO_SECRET/);
});

test('the README documents every setting', () => {
  const readme = fs.readFileSync('README.md', 'utf8');
  for (const entry of envDocumentation)
    assert.ok(readme.includes(`| \`${entry.name}\` |`), `${entry.name} is missing from the README`);
});
