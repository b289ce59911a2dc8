import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { readmeTables, settingsTables } from '../scripts/docs.ts';
import { ConfigError, loadConfig, settingsOf } from './config.ts';
import { tokenLimitSettings } from './modules/auth/settings.ts';

test('defaults need no environment at all', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.databaseUrl, '');
  assert.ok(config.dataDir.endsWith('data'));
  assert.deepEqual(settingsOf(config, tokenLimitSettings), { max: 100, failures: 10, windowSeconds: 300, blockSeconds: 300 });
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
  assert.throws(
    () => loadConfig({ CAIRN_WORKER_HEAP_MB: '128', CAIRN_WORKER_HEAP_FLOOR_MB: '128' }),
    /CAIRN_WORKER_HEAP_FLOOR_MB/,
  );
});

test("an area's section is read from the same environment, checked, and named when wrong", () => {
  const config = loadConfig({ CAIRN_TOKEN_LIMIT: '7' });
  assert.equal(settingsOf(config, tokenLimitSettings).max, 7);
  assert.throws(
    () => loadConfig({ CAIRN_TOKEN_LIMIT: 'many' }, [tokenLimitSettings]),
    (error: Error) => error instanceof ConfigError && /CAIRN_TOKEN_LIMIT/.test(error.message),
  );
});

test('the README lists every setting as the code declares it (npm run docs writes it)', () => {
  assert.equal(readmeTables(fs.readFileSync('README.md', 'utf8')), settingsTables());
});
