import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openDatabase } from '../db/database.ts';
import { call, jobsSettled, startServer } from '../test/processes.ts';
import { startReceiver } from '../test/receiver.ts';
import { scratchSchema } from '../test/scratch-schema.ts';

/**
 * The job queue with several nodes on one database: two `cairn serve` processes, each with job
 * workers, take the webhook deliveries that writes made on either of them. Every delivery runs
 * once (the receiver sees each event once, and the nodes' cairn_jobs_total adds up to the events),
 * none is lost, both nodes take work and neither more than its workers allow (deliveries are held
 * at the receiver until each node runs one), and a record's deliveries arrive in the order of its
 * writes (they share a queue key). On PostgreSQL and on a Citus coordinator (the CI legs with
 * DATABASE_URL), in a schema of its own, so the nodes' workers take no other test file's jobs.
 */

const skip = !process.env.DATABASE_URL && 'needs DATABASE_URL: the embedded database belongs to one process';
const PATIENTS = 12;
const UPDATES = 4;
const DELIVER = 'webhooks.deliver';

describe('the job queue on two nodes', { skip }, () => {
  test('two cairn serve processes under load: no delivery twice, none lost, both work, per-record order', {
    timeout: 300_000,
  }, async (t) => {
    const scratch = await scratchSchema(process.env.DATABASE_URL!, 'cairn_nodes');
    after(() => scratch.drop());
    const scratchDb = await openDatabase({ databaseUrl: scratch.url, dataDir: '', poolSize: 1 });
    after(() => scratchDb.close());
    const receiver = await startReceiver({ status: 200, delayMs: 5 });
    const env = {
      ...process.env,
      DATABASE_URL: scratch.url,
      DATABASE_POOL_SIZE: '6',
      CAIRN_DEMO: 'true',
      CAIRN_DEMO_CLIENT: 'nodes-demo-key',
      CAIRN_DEMO_SECRET: 'a-nodes-demo-secret-1',
      // One job at a time each: a node running a held delivery has no room, so the other takes the next.
      CAIRN_JOB_WORKERS: '1',
      CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true',
      // The held delivery is no timeout (its job's lease is renewed while it runs).
      CAIRN_WEBHOOKS_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'warn',
    };
    // One at a time: the first migrates and makes the demo tenant, the second finds them.
    const first = await startServer(1, env, { timeoutMs: 180_000 });
    const second = await startServer(1, env, { timeoutMs: 120_000 });
    const nodes = [first, second];

    const login = await call('POST', `${first.base}/auth/token`, {
      apiClient: 'nodes-demo-key',
      secret: 'a-nodes-demo-secret-1',
    });
    assert.equal(login.status, 200, login.text);
    const token = login.body.token as string;
    const hook = await call(
      'POST',
      `${second.base}/demo/admin/webhooks`,
      { name: 'nodes', url: `${receiver.url}/hook`, eventEntities: ['PATIENT'] },
      token,
    );
    assert.equal(hook.status, 201, hook.text);
    // Every delivery is held at the receiver until each node is running one (the queue's own
    // record of who runs what): both nodes take work, shown whatever the timing, not hoped for.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    receiver.otherwise({ status: 200, until: gate });

    // Each patient's writes go one after another, alternating nodes; the patients go at once.
    const patientIds = await Promise.all(
      Array.from({ length: PATIENTS }, async (_, p) => {
        const created = await call(
          'POST',
          `${nodes[p % 2]!.base}/demo/sandbox/patients`,
          { firstName: 'Node', lastName: `Load${p}` },
          token,
        );
        assert.equal(created.status, 201, created.text);
        const id = created.body.id as string;
        for (let u = 1; u <= UPDATES; u++) {
          // A record's writes are apart in time, so their events' timestamps say their order.
          await sleep(2);
          const updated = await call(
            'PATCH',
            `${nodes[(p + u) % 2]!.base}/demo/sandbox/patients/${id}`,
            { lastName: `Load${p}-${u}` },
            token,
          );
          assert.equal(updated.status, 200, updated.text);
        }
        return id;
      }),
    );

    const expected = PATIENTS * (UPDATES + 1);
    // A job's runner is `{host}:{pid}:…`: each node is one process (`--workers 1`), running at most
    // one job at a time (CAIRN_JOB_WORKERS=1). While the deliveries are held, each node takes one.
    const pids = nodes.map((node) => String(node.child.pid));
    const running = async () => {
      const { rows } = await sql<{ locked_by: string | null }>`
        SELECT locked_by FROM jobs WHERE kind = ${DELIVER} AND state = 'RUNNING'`.execute(scratchDb.db);
      return pids.map((pid) => rows.filter((row) => row.locked_by?.split(':')[1] === pid).length);
    };
    let held = await running();
    for (let waited = 0; !held.every((count) => count > 0) && waited < 120_000; waited += 100) {
      assert.ok(
        held.every((count) => count <= 1),
        `a node ran past its one worker (${held.join(', ')})`,
      );
      await sleep(100);
      held = await running();
    }
    release();
    assert.deepEqual(held, [1, 1], 'while deliveries are held, each node runs one, and no more');
    for (let waited = 0; receiver.received.length < expected && waited < 120_000; waited += 100) await sleep(100);
    // A moment more, for a delivery that would come twice.
    await sleep(1_000);

    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    assert.equal(new Set(ids).size, ids.length, 'no event is delivered twice');
    assert.equal(ids.length, expected, `every event is delivered (${ids.length} of ${expected})`);
    for (const id of patientIds) {
      const own = receiver.received.map((request) => request.json).filter((event) => event.recordId === id);
      assert.deepEqual(
        own.map((event) => event.type),
        ['PATIENT_CREATED', ...Array(UPDATES).fill('PATIENT_UPDATED')],
        'a record is delivered in the order of its writes',
      );
      const times = own.map((event) => Date.parse(event.timestamp));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'a record is delivered in the order of its writes',
      );
    }
    const runs = await jobsSettled(nodes, DELIVER, expected);
    t.diagnostic(`deliveries run by each node: ${runs.join(', ')}`);
    assert.equal(runs[0]! + runs[1]!, expected, `each delivery job ran once (${runs.join(' + ')})`);

    for (const node of nodes) node.stop();
    await Promise.all(nodes.map((node) => node.stopped));
  });
});
