import assert from 'node:assert/strict';
import { test } from 'node:test';
import { areas } from '../areas.ts';
import type { Area } from '../platform/area.ts';
import { TestClock } from '../test/clock.ts';
import { createTestTenant, startApp } from '../test/harness.ts';
import { jobContext } from '../work/job-context.ts';
import { write } from '../work/write.ts';
import { claimJobs } from './queue.ts';

/** A job kind whose first run holds on until the test lets it go. */
function slowArea() {
  let release = () => {};
  let started = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const runs: number[] = [];
  const area: Area = {
    name: 'slow',
    jobs: {
      'slow.work': {
        description: 'Work that takes longer than a lease',
        maxAttempts: 3,
        run: async (job) => {
          runs.push(job.attempt);
          if (runs.length === 1) {
            started();
            await gate;
          }
        },
      },
    },
  };
  return { area, runs, running, release };
}

test('a job running longer than its lease keeps it while its worker lives; once the worker is silent, another takes it', async () => {
  const clock = new TestClock();
  const slow = slowArea();
  const options = { areas: [...areas, slow.area], clock, env: { CAIRN_JOB_LEASE_SECONDS: '5' } };
  const first = await startApp({}, options);
  const second = await startApp({}, options);
  const t = await createTestTenant(first);
  const only = { tenants: [t.tenant.id] };
  const ctx = await jobContext(first.services, t.tenant.id);
  await write(ctx!, async (w) => w.enqueue({ kind: 'slow.work' }));

  const draining = first.services.jobs.drain(only);
  await slow.running;
  clock.advance(4_000);
  await first.services.jobs.renewLeases();
  clock.advance(4_000);
  // Past the lease it was taken with, within the renewed one: the job is still the first worker's.
  assert.equal(await second.services.jobs.drain(only), 0);
  assert.deepEqual(slow.runs, [1]);

  // The first worker renews no more (as if its process had died): after its lease, the job runs again.
  clock.advance(2_000);
  assert.equal(await second.services.jobs.drain(only), 1);
  assert.deepEqual(slow.runs, [1, 2]);

  // The first run ends late: the job is no longer its own, and nothing of it is written.
  slow.release();
  await draining;
  const left = await first.services.db.selectFrom('jobs').select('id').where('tenant_id', '=', t.tenant.id).execute();
  assert.deepEqual(left, []);
});

test('a claim takes at most what it asks for, however the planner joins the pick (a runner keeps its bound)', async () => {
  const app = await startApp();
  const t = await createTestTenant(app);
  const ctx = await jobContext(app.services, t.tenant.id);
  // Twelve due jobs of one tenant, each its own key, as twelve records' first deliveries are.
  await write(ctx!, async (w) => {
    for (let index = 0; index < 12; index++) w.enqueue({ kind: 'slow.work', key: `record-${index}` });
  });
  const now = app.services.clock.now();
  const options = {
    kinds: ['slow.work'],
    now,
    leaseUntil: new Date(now.getTime() + 60_000),
    worker: 'bound-test',
    engine: app.services.dbKind,
  };
  for (const limit of [1, 1, 3]) {
    const taken = await claimJobs(app.services.db, { ...options, limit, tenants: [t.tenant.id] });
    assert.equal(taken.length, limit, `a claim of ${limit} took ${taken.length}`);
  }
  const running = await app.services.db
    .selectFrom('jobs')
    .select('id')
    .where('tenant_id', '=', t.tenant.id)
    .where('state', '=', 'RUNNING')
    .execute();
  assert.equal(running.length, 5);
});
