import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, jobsSettled, startServer } from '../test/processes.ts';
import { startReceiver } from '../test/receiver.ts';
import { scratchSchema } from '../test/scratch-schema.ts';

/**
 * Wake-ups between nodes: writes on an API-only node (CAIRN_JOB_WORKERS=0) name their tenant in a
 * notification, and a job node takes that tenant's work with statements pinned to it. The job
 * node's sweep across tenants runs once at start-up and then only after an hour here, so every
 * delivery that arrives was woken by a notification (on PostgreSQL and on a Citus coordinator,
 * the CI legs with DATABASE_URL, in a schema of its own).
 */

const skip = !process.env.DATABASE_URL && 'needs DATABASE_URL: notifications go between processes on one PostgreSQL';
const WRITES = 10;

describe('wake-ups between nodes', { skip }, () => {
  test("an API-only node's writes wake the job node for their tenant: deliveries with no sweep to find them", {
    timeout: 300_000,
  }, async () => {
    const scratch = await scratchSchema(process.env.DATABASE_URL!, 'cairn_wakeups');
    after(() => scratch.drop());
    const receiver = await startReceiver(200);
    const env = {
      ...process.env,
      DATABASE_URL: scratch.url,
      DATABASE_POOL_SIZE: '4',
      CAIRN_DEMO: 'true',
      CAIRN_DEMO_CLIENT: 'wakeups-demo-key',
      CAIRN_DEMO_SECRET: 'a-wakeups-demo-secret-1',
      CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true',
      CAIRN_JOB_SWEEP_SECONDS: '3600',
      LOG_LEVEL: 'warn',
    };
    // The API node first: it migrates and makes the demo tenant; the job node sweeps once when it starts.
    const api = await startServer(1, { ...env, CAIRN_JOB_WORKERS: '0' }, { timeoutMs: 180_000 });
    const jobs = await startServer(1, { ...env, CAIRN_JOB_WORKERS: '4' }, { timeoutMs: 120_000 });
    const login = await call('POST', `${api.base}/auth/token`, {
      apiClient: 'wakeups-demo-key',
      secret: 'a-wakeups-demo-secret-1',
    });
    assert.equal(login.status, 200, login.text);
    const token = login.body.token as string;
    const hook = await call(
      'POST',
      `${api.base}/demo/admin/webhooks`,
      { name: 'wakeups', url: `${receiver.url}/hook`, eventSubtypes: ['PATIENT_CREATED'] },
      token,
    );
    assert.equal(hook.status, 201, hook.text);
    // Past the job node's start-up sweep: from here only wake-ups bring work to it.
    await sleep(1_000);

    for (let i = 0; i < WRITES; i++) {
      const created = await call('POST', `${api.base}/demo/sandbox/patients`, { firstName: 'Wake', lastName: `Up${i}` }, token);
      assert.equal(created.status, 201, created.text);
    }
    for (let waited = 0; receiver.received.length < WRITES && waited < 60_000; waited += 100) await sleep(100);
    assert.equal(receiver.received.length, WRITES, `every create is delivered (${receiver.received.length} of ${WRITES})`);
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    assert.equal(new Set(ids).size, WRITES, 'no event is delivered twice');
    const [apiRuns, jobRuns] = await jobsSettled([api, jobs], 'webhooks.deliver', WRITES);
    assert.equal(apiRuns, 0, 'the API-only node runs no job');
    assert.equal(jobRuns, WRITES, 'the job node ran each delivery once');

    for (const node of [api, jobs]) node.stop();
    await Promise.all([api.stopped, jobs.stopped]);
  });
});
