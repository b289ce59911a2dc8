import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { areas } from '../areas.ts';
import { settingsOf } from '../config.ts';
import type { Services } from '../http/services.ts';
import type { Area } from '../platform/area.ts';
import { TestClock } from '../test/clock.ts';
import { Faults } from '../test/faults.ts';
import { createTestTenant, startApp, type TestTenant } from '../test/harness.ts';
import { startReceiver } from '../test/receiver.ts';
import { jobContext } from '../work/job-context.ts';
import { write } from '../work/write.ts';
import { JobRunner } from './runner.ts';
import { jobSettings } from './settings.ts';

/**
 * What becomes of a run is written with retries while the database is unreachable (a job's end, a
 * delivery's outcome), so a fault seldom makes work run twice; past the retries the job still runs
 * again after its lease (at least once). Faults are injected at the driver's edge of the real
 * database (test/faults.ts); the runner, the queue and the deliveries are Cairn's own.
 */

const runs: string[] = [];
const area: Area = {
  name: 'outcome',
  jobs: {
    'outcome.work': {
      description: 'Work that counts its runs',
      maxAttempts: 3,
      run: async (job) => {
        runs.push(job.id);
      },
    },
  },
};
const clock = new TestClock();
// A 5-second lease: the end is retried for 2.5 s at most.
const env = { CAIRN_JOB_LEASE_SECONDS: '5', CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true', CAIRN_JOB_WORKERS: '2' };
const app = await startApp({}, { areas: [...areas, area], clock, env });

/** The app's runner, its database faulty as `faults` says (the runs' services too). */
function runnerWith(faults: Faults): JobRunner<Services> {
  const { services } = app;
  const db = services.db.withPlugin(faults);
  return new JobRunner<Services>({
    db,
    engine: services.dbKind,
    clock,
    kinds: services.jobs.kinds,
    env: Object.create(services, { db: { value: db } }) as Services,
    settings: settingsOf(app.config, jobSettings),
    log: { warn: () => {} },
  });
}

async function enqueue(t: TestTenant): Promise<void> {
  const ctx = await jobContext(app.services, t.tenant.id);
  await write(ctx!, async (w) => w.enqueue({ kind: 'outcome.work' }));
}

async function jobsOf(t: TestTenant) {
  return app.services.db.selectFrom('jobs').select(['state', 'kind']).where('tenant_id', '=', t.tenant.id).execute();
}

describe("a run's end under database faults", () => {
  test("the job's end, its answer lost twice (it ran), is written again: the job ran once and is gone", async () => {
    const t = await createTestTenant(app);
    await enqueue(t);
    const faults = new Faults(/cairn_end_job/, 2, 'after');
    const runner = runnerWith(faults);
    const before = runs.length;
    await runner.drain({ tenants: [t.tenant.id] });
    assert.equal(runs.length - before, 1);
    assert.equal(faults.seen.length, 2, 'the end failed twice');
    assert.equal(runner.ended.get('outcome.work')?.get('succeeded'), 1);
    assert.equal(runner.ended.get('outcome.work')?.get('unrecorded'), undefined);
    assert.deepEqual(await jobsOf(t), []);
    clock.advance(6_000);
    assert.equal(await app.jobs.drain(), 0, 'nothing runs again after the lease');
    assert.equal(runs.length - before, 1);
  });

  test("the job's end, refused three times (unsent), is written on the fourth try", async () => {
    const t = await createTestTenant(app);
    await enqueue(t);
    const faults = new Faults(/cairn_end_job/, 3, 'before');
    const runner = runnerWith(faults);
    const before = runs.length;
    await runner.drain({ tenants: [t.tenant.id] });
    assert.equal(faults.seen.length, 3);
    assert.equal(runner.ended.get('outcome.work')?.get('succeeded'), 1);
    assert.deepEqual(await jobsOf(t), []);
    clock.advance(6_000);
    await app.jobs.drain();
    assert.equal(runs.length - before, 1);
  });

  test('a fault that outlasts the retries leaves the end unrecorded: the job runs again after its lease (at least once)', async () => {
    const t = await createTestTenant(app);
    await enqueue(t);
    const runner = runnerWith(new Faults(/cairn_end_job/, 1_000, 'before'));
    const before = runs.length;
    await runner.drain({ tenants: [t.tenant.id] });
    assert.equal(runner.ended.get('outcome.work')?.get('unrecorded'), 1);
    assert.deepEqual(await jobsOf(t), [{ state: 'RUNNING', kind: 'outcome.work' }]);
    clock.advance(6_000);
    await app.jobs.drain();
    assert.equal(runs.length - before, 2);
    assert.deepEqual(await jobsOf(t), []);
  });

  test('a delivery whose outcome could not be written at first is written on the retry: sent once, DELIVERED, not sent again', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver(200);
    const hook = await t.api.post(`${t.admin}/webhooks`, {
      name: 'outcome',
      url: `${receiver.url}/hook`,
      eventSubtypes: ['PATIENT_CREATED'],
    });
    assert.equal(hook.status, 201, hook.text);
    const patient = await t.api.post(`${t.base}/patients`, { firstName: 'Out', lastName: 'Come' });
    assert.equal(patient.status, 201, patient.text);
    const faults = new Faults(/UPDATE webhook_attempts/, 1, 'before');
    await runnerWith(faults).drain({ tenants: [t.tenant.id] });
    assert.equal(faults.seen.length, 1, 'the outcome failed once');
    assert.equal(receiver.received.length, 1);
    const deliveries = await app.services.db
      .selectFrom('webhook_deliveries')
      .select(['state', 'attempts'])
      .where('tenant_id', '=', t.tenant.id)
      .execute();
    assert.deepEqual(deliveries, [{ state: 'DELIVERED', attempts: 1 }]);
    clock.advance(6_000);
    await app.jobs.drain();
    assert.equal(receiver.received.length, 1, 'not sent again');
  });
});

describe("a write wakes this process's workers for its tenant", {
  skip:
    process.env.DATABASE_URL &&
    "a started runner on the shared server would take other test files' jobs: wakeups.test.ts covers PostgreSQL and Citus with processes of their own",
}, () => {
  test('its job runs at once, with no sweep to find it', async () => {
    const own = await startApp({}, { areas: [...areas, area], clock, env: { ...env, CAIRN_JOB_SWEEP_SECONDS: '3600' } });
    const t = await createTestTenant(own);
    await own.services.jobs.start();
    try {
      // The start-up sweep is behind us: the next is an hour away.
      await sleep(500);
      const before = runs.length;
      const ctx = await jobContext(own.services, t.tenant.id);
      await write(ctx!, async (w) => w.enqueue({ kind: 'outcome.work' }));
      for (let waited = 0; runs.length === before && waited < 10_000; waited += 20) await sleep(20);
      assert.equal(runs.length - before, 1);
    } finally {
      await own.services.jobs.stop();
    }
  });
});
