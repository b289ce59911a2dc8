import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Cluster, postgresBinDir, startCluster } from '../test/postgres-cluster.ts';
import { type Answer, call, type Started, startServer, workersAnswering } from '../test/processes.ts';

/**
 * The server survives its database: a restart under concurrent writes fails only the requests
 * that were using a connection (503 with Retry-After), never the process, and loses no write it
 * acknowledged; a server started while the database is down waits for it; a worker that cannot
 * start exits and is replaced. Each test runs `cairn serve` against a PostgreSQL cluster of its
 * own, which it restarts and stops. It runs in CI's PostgreSQL leg.
 */
const skip = !process.env.DATABASE_URL
  ? 'runs in the PostgreSQL leg (DATABASE_URL set)'
  : !postgresBinDir()
    ? 'PostgreSQL binaries are not installed'
    : false;

const DEMO = { CAIRN_DEMO_CLIENT: 'restart-demo-key', CAIRN_DEMO_SECRET: 'restart-demo-secret-000' };

describe('the database restarts', { skip, timeout: 240_000 }, () => {
  let cluster: Cluster;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    cluster = await startCluster({ fsync: 'off', max_connections: '100' });
    env = {
      ...process.env,
      DATABASE_URL: cluster.url('postgres'),
      DATABASE_POOL_SIZE: '10',
      CAIRN_DEMO: 'true',
      ...DEMO,
      LOG_LEVEL: 'warn',
    };
  });
  after(() => cluster?.stop());

  async function tokenOf(server: Started): Promise<string> {
    const login = await call('POST', `${server.base}/auth/token`, {
      apiClient: DEMO.CAIRN_DEMO_CLIENT,
      secret: DEMO.CAIRN_DEMO_SECRET,
    });
    assert.equal(login.status, 200, login.text);
    return login.body.token;
  }

  /** 20 writers creating patients until stopped; what each request answered. */
  function writers(server: Started, token: string) {
    const answers: { status: number; id?: string; retryAfter?: string; errorCode?: string }[] = [];
    let running = true;
    const loops = Array.from({ length: 20 }, async (_, writer) => {
      for (let n = 0; running; n++) {
        const response: Answer | undefined = await call(
          'POST',
          `${server.base}/demo/sandbox/patients`,
          { firstName: `Writer${writer}`, lastName: `Number${n}` },
          token,
        ).catch(() => undefined);
        if (!response) {
          answers.push({ status: 0 });
          continue;
        }
        answers.push({
          status: response.status,
          id: response.status === 201 ? response.body.id : undefined,
          retryAfter: response.headers['retry-after'] as string | undefined,
          errorCode: Array.isArray(response.body) ? response.body[0]?.errorCode : undefined,
        });
        if (response.status !== 201) await sleep(50);
      }
    });
    return {
      answers,
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  async function untilCreated(server: Started, token: string, withinMs: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < withinMs) {
      const response = await call(
        'POST',
        `${server.base}/demo/sandbox/patients`,
        { firstName: 'After', lastName: 'Restart' },
        token,
      );
      if (response.status === 201) return Date.now() - started;
      await sleep(100);
    }
    assert.fail(`no create succeeded within ${withinMs} ms of the database's return`);
  }

  async function assertAllPresent(server: Started, token: string, ids: string[]) {
    for (let i = 0; i < ids.length; i += 25) {
      const batch = await Promise.all(
        ids.slice(i, i + 25).map((id) => call('GET', `${server.base}/demo/sandbox/patients/${id}`, undefined, token)),
      );
      for (const [j, response] of batch.entries())
        assert.equal(response.status, 200, `acknowledged patient ${ids[i + j]} is missing`);
    }
  }

  function assertOnly201Or503(answers: { status: number; retryAfter?: string; errorCode?: string }[]) {
    const unexpected = answers.filter((answer) => answer.status !== 201 && answer.status !== 503);
    assert.deepEqual(unexpected, [], 'every request answered 201, or 503 while the database was away');
    for (const answer of answers.filter((a) => a.status === 503)) {
      assert.equal(answer.errorCode, 'SERVICE_UNAVAILABLE');
      assert.ok(Number(answer.retryAfter) > 0, 'a 503 carries Retry-After');
    }
  }

  test('a restart under 20 concurrent writers: the single process keeps serving and loses no acknowledged write', async () => {
    const server = await startServer(1, env);
    const token = await tokenOf(server);
    const load = writers(server, token);
    await sleep(1500);
    cluster.restart();
    const back = await untilCreated(server, token, 15_000);
    await sleep(1000);
    await load.stop();

    assert.equal(server.child.exitCode, null, `the server died:\n${server.output()}`);
    assertOnly201Or503(load.answers);
    const acknowledged = load.answers.flatMap((answer) => (answer.id ? [answer.id] : []));
    assert.ok(acknowledged.length > 50, `only ${acknowledged.length} writes were acknowledged`);
    await assertAllPresent(server, token, acknowledged);
    assert.ok(back < 10_000, `served again ${back} ms after the restart`);
    assert.equal((await call('GET', `${server.base}/health/ready`)).status, 200);
    server.stop();
    await server.stopped;
  });

  test('with two workers: a crash is seen by /health/ready, not /health/live, and the same workers serve again', async () => {
    const server = await startServer(2, env);
    const token = await tokenOf(server);
    const workersBefore = await workersAnswering(server.base, 2);
    const load = writers(server, token);
    await sleep(1000);
    // As if the database's processes were killed: no shutdown checkpoint, crash recovery on start.
    cluster.halt('immediate');
    await sleep(500);
    const ready = await call('GET', `${server.base}/health/ready`);
    assert.equal(ready.status, 503);
    assert.equal((await call('GET', `${server.base}/health/live`)).status, 200);
    const duringOutage = await call('GET', `${server.base}/demo/sandbox/patients?size=1`, undefined, token);
    assert.equal(duringOutage.status, 503);
    assert.equal(duringOutage.body[0].errorCode, 'SERVICE_UNAVAILABLE');
    await sleep(2000);
    cluster.start();
    const back = await untilCreated(server, token, 15_000);
    await load.stop();

    assertOnly201Or503(load.answers);
    await assertAllPresent(
      server,
      token,
      load.answers.flatMap((answer) => (answer.id ? [answer.id] : [])),
    );
    assert.ok(back < 10_000, `served again ${back} ms after the database came back`);
    // No worker was replaced: the same ids answer.
    assert.deepEqual([...(await workersAnswering(server.base, 2))].sort(), [...workersBefore].sort());
    server.stop();
    await server.stopped;
  });

  test('a server started while the database is down waits for it; a worker that cannot start exits and is replaced', async () => {
    cluster.halt();
    let output = () => '';
    const starting = startServer(
      2,
      { ...env, DATABASE_WAIT_SECONDS: '60' },
      { timeoutMs: 90_000, onSpawn: (s) => (output = s.output) },
    );
    for (let i = 0; i < 200 && !/database not reachable \(ECONNREFUSED\); retrying/.test(output()); i++) await sleep(100);
    assert.match(output(), /database not reachable \(ECONNREFUSED\); retrying/);
    cluster.start();
    const server = await starting;
    const token = await tokenOf(server);

    // A worker killed while the database is down is replaced by one that cannot start: it gives
    // up after DATABASE_WAIT_SECONDS, exits, and its successor serves once the database is back.
    const shortWait = await startServer(2, { ...env, DATABASE_WAIT_SECONDS: '1' });
    cluster.halt();
    const workerPids = execFileSync('pgrep', ['-P', String(shortWait.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n');
    process.kill(Number(workerPids[0]), 'SIGKILL');
    for (let i = 0; i < 300 && !/exited \(1\)/.test(shortWait.output()); i++) await sleep(100);
    assert.match(shortWait.output(), /the database was not reachable within 1 s/);
    assert.match(shortWait.output(), /worker \d+ exited \(1\); starting another/);
    assert.equal(shortWait.child.exitCode, null, 'the primary keeps running');
    cluster.start();
    const deadline = Date.now() + 30_000;
    while ((await workersAnswering(shortWait.base, 2)).size < 2 && Date.now() < deadline) await sleep(500);
    assert.equal((await workersAnswering(shortWait.base, 2)).size, 2, `both workers serve again:\n${shortWait.output()}`);
    const create = await call('POST', `${shortWait.base}/demo/sandbox/patients`, { firstName: 'New', lastName: 'Worker' }, token);
    assert.equal(create.status, 201);
    for (const started of [server, shortWait]) {
      started.stop();
      await started.stopped;
    }
  });
});
