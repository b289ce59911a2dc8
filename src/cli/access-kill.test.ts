import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { testDataDir } from '../test/data-dirs.ts';
import { call, startServer } from '../test/processes.ts';

/**
 * The access log loses no answer's record: `cairn serve` is killed (SIGKILL, no shutdown) while
 * readers are being answered, then started again; every answer a reader received has its record.
 * The record commits before the answer's first byte is sent (http/access-log.ts), so this holds
 * for the embedded database too, whose process is the one killed.
 */

const run = promisify(execFile);
// An embedded database of its own, from the runner's migrated template (on PostgreSQL, its own tenant).
const dataDir = await testDataDir('cairn-kill-');
const env = { ...process.env, CAIRN_DATA_DIR: dataDir, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function cairn(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env, timeout: 60_000 });
  return stdout;
}

test('every answer received before a kill -9 has its access record after the restart', { timeout: 180_000 }, async () => {
  const tenant = `kill${randomBytes(4).toString('hex')}`;
  await cairn('tenant', 'create', tenant);
  await cairn('instance', 'create', tenant, 'sandbox');
  await cairn('formation', 'apply', `${tenant}/sandbox`, 'formations/demo.json');
  const created = await cairn('client', 'create', tenant, '--name', 'reader', '--role', 'sandbox:administrator');
  const apiClient = /key: +(\S+)/.exec(created)?.[1];
  const secret = /secret: +(\S+)/.exec(created)?.[1];

  let server = await startServer(1, env);
  const token = async () => (await call('POST', `${server.base}/auth/token`, { apiClient, secret })).body.token as string;
  const reader = await token();
  const patient = await call(
    'POST',
    `${server.base}/${tenant}/sandbox/patients`,
    { firstName: 'Ada', lastName: 'Quill' },
    reader,
  );
  assert.equal(patient.status, 201, patient.text);

  // Eight readers until the server dies under them; the request ids of the answers they received.
  const received: string[] = [];
  let running = true;
  const readers = Array.from({ length: 8 }, async () => {
    while (running) {
      const answer = await call('GET', `${server.base}/${tenant}/sandbox/patients/${patient.body.id}`, undefined, reader).catch(
        () => undefined,
      );
      if (answer?.status === 200) received.push(String(answer.headers['x-request-id']));
    }
  });
  while (received.length < 200) await sleep(20);
  server.child.kill('SIGKILL');
  await server.stopped;
  running = false;
  await Promise.all(readers);

  server = await startServer(1, env);
  const admin = await token();
  const logged = new Set<string>();
  for (let page = 0; ; page++) {
    const log = await call(
      'GET',
      `${server.base}/${tenant}/admin/access-log?patientId=${patient.body.id}&size=1000&page=${page}`,
      undefined,
      admin,
    );
    assert.equal(log.status, 200, log.text);
    for (const record of log.body.data) logged.add(record.requestId);
    if (log.body.data.length < 1000) break;
  }
  const lost = received.filter((requestId) => !logged.has(requestId));
  assert.deepEqual(lost, [], `${lost.length} of ${received.length} answers received have no record`);
  server.stop();
  await server.stopped;
});
