import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { Formation } from '../formation/schemas.ts';
import { systemContext } from '../http/context.ts';
import type { Services } from '../http/services.ts';
import { applyFormation } from '../modules/formation/operations.ts';
import { createApiClient, createInstance, createTenant } from '../tenancy/store.ts';
import { ownClusterUnavailable, startOwnCluster } from '../test/citus-cluster.ts';
import { call, startServer } from '../test/processes.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';

/**
 * One Citus worker down: a tenant whose shards are all on the other worker is served as usual.
 * Its requests need only its worker (reads, writes, a token, a node started during the outage),
 * its writes' webhooks are delivered (wake-ups claim its jobs pinned to it), and a retry waiting
 * out its backoff is found by the sweep, which asks the reachable worker's tenants on their own.
 * The test stops a worker of a cluster of its own (shared/citus/cluster.sh), never the suite's,
 * which the test files running beside it use; it runs on the Citus leg of CI only.
 */

async function skipReason(): Promise<string | false> {
  const url = process.env.DATABASE_URL;
  if (!url) return 'the Citus leg only (DATABASE_URL of a Citus coordinator): it stops a worker of a cluster of its own';
  const probe = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 1 });
  const kind = probe.kind;
  await probe.close();
  if (kind !== 'citus') return 'the Citus leg only: it stops a worker of a cluster of its own';
  return ownClusterUnavailable() ?? false;
}

const skip = await skipReason();

interface Tenant {
  name: string;
  id: string;
  worker: number;
  token: string;
  clientKey: string;
  secret: string;
}

/** Tenants until one lives on each worker, each with an instance `sandbox` of the demo formation and an administrator client. */
async function tenantsOnEachWorker(services: Services, workerOf: (id: string) => Promise<number>): Promise<Map<number, Tenant>> {
  const formation = JSON.parse(
    fs.readFileSync(path.join(import.meta.dirname, '../../formations/demo.json'), 'utf8'),
  ) as Formation;
  const found = new Map<number, Tenant>();
  for (let tries = 0; found.size < 2 && tries < 40; tries++) {
    const tenant = await createTenant(services, `outage${randomBytes(4).toString('hex')}`);
    const worker = await workerOf(tenant.id);
    if (found.has(worker)) continue;
    const instance = await createInstance(services, tenant, 'sandbox');
    await applyFormation(systemContext(services, tenant, instance), formation);
    const client = await createApiClient(services, tenant, {
      name: 'outage',
      roles: [{ instanceId: instance.id, role: 'administrator' }],
    });
    const { token } = await services.tokens.issue({
      type: 'API_CLIENT',
      id: client.id,
      tenantId: tenant.id,
      name: 'API_CLIENT:outage',
    });
    found.set(worker, { name: tenant.name, id: tenant.id, worker, token, clientKey: client.clientKey, secret: client.secret });
  }
  assert.equal(found.size, 2, 'a tenant on each worker');
  return found;
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  for (let waited = 0; !condition() && waited < ms; waited += 100) await sleep(100);
}

describe('a Citus worker down', { skip }, () => {
  test("the other worker's tenant: every request answers, every webhook is delivered, its retries too", {
    timeout: 600_000,
  }, async () => {
    const cluster = await startOwnCluster();
    after(() => cluster.destroy());
    const url = new URL(cluster.url);
    url.searchParams.set('options', '-c citus.shard_count=4');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-outage-'));
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

    // Set-up in this process: the schema, two tenants on different workers, their clients and tokens.
    const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 2 });
    after(() => database.close());
    await migrateToLatest(database.db);
    const config = loadConfig({
      DATABASE_URL: url.toString(),
      CAIRN_DEMO: 'false',
      LOG_LEVEL: 'silent',
      CAIRN_DATA_DIR: dataDir,
    });
    const { server, services } = await buildApp({ config, database });
    after(() => server.close());
    const tenants = await tenantsOnEachWorker(services, (id) => cluster.workerOf(database.db, id));
    const [a, b] = [tenants.get(1)!, tenants.get(2)!];

    const env = {
      ...process.env,
      DATABASE_URL: url.toString(),
      DATABASE_POOL_SIZE: '4',
      CAIRN_DEMO: 'false',
      CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true',
      CAIRN_JOB_SWEEP_SECONDS: '1',
      LOG_LEVEL: 'warn',
    };
    const jobs = await startServer(1, { ...env, CAIRN_JOB_WORKERS: '4' }, { timeoutMs: 120_000 });
    const receivers = new Map<Tenant, Receiver>();
    for (const t of [a, b]) {
      const receiver = await startReceiver(200);
      receivers.set(t, receiver);
      const hook = await call(
        'POST',
        `${jobs.base}/${t.name}/admin/webhooks`,
        { name: 'outage', url: `${receiver.url}/hook`, eventEntities: ['PATIENT'] },
        t.token,
      );
      assert.equal(hook.status, 201, hook.text);
    }
    const hooks = receivers.get(b)!;

    cluster.stopWorker(a.worker);
    // A node started now: it reads what it needs (the signing key, the migrations) and writes nothing global.
    const api = await startServer(1, { ...env, CAIRN_JOB_WORKERS: '0' }, { timeoutMs: 120_000 });

    const tenantA = await call('GET', `${api.base}/${a.name}/sandbox/patients`, undefined, a.token);
    assert.equal(tenantA.status, 503, 'the stopped worker’s tenant is unavailable');

    const login = await call('POST', `${api.base}/auth/token`, { apiClient: b.clientKey, secret: b.secret });
    assert.equal(login.status, 200, login.text);
    const token = login.body.token as string;
    const statuses: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const node = i % 2 ? api : jobs;
      const created = await call(
        'POST',
        `${node.base}/${b.name}/sandbox/patients`,
        { firstName: 'Out', lastName: `Age${i}` },
        token,
      );
      statuses.push(created.status);
      const id = created.body?.id as string;
      ids.push(id);
      statuses.push((await call('GET', `${node.base}/${b.name}/sandbox/patients/${id}`, undefined, token)).status);
      statuses.push((await call('GET', `${node.base}/${b.name}/sandbox/patients?search=Age`, undefined, token)).status);
      statuses.push(
        (await call('PATCH', `${node.base}/${b.name}/sandbox/patients/${id}`, { lastName: `Age${i}b` }, token)).status,
      );
    }
    assert.deepEqual(
      statuses.filter((status) => status >= 300),
      [],
      'every request of the other tenant answers',
    );
    // A create and an update of each patient.
    await until(() => hooks.received.length >= 16, 60_000);
    assert.equal(hooks.received.length, 16, `the other tenant's webhooks are delivered (${hooks.received.length} of 16)`);

    // A delivery that fails once waits out its backoff: no write wakes anyone for it, the sweep finds it.
    hooks.answer(500);
    const last = await call('POST', `${api.base}/${b.name}/sandbox/patients`, { firstName: 'Out', lastName: 'Last' }, token);
    assert.equal(last.status, 201, last.text);
    await until(() => hooks.received.length >= 18, 60_000);
    const attempts = hooks.received.filter((request) => request.json.recordId === last.body.id);
    assert.equal(attempts.length, 2, 'the failed delivery is retried, found by the sweep');
    assert.equal(receivers.get(a)!.received.length, 0, 'nothing of the stopped worker’s tenant');

    for (const node of [api, jobs]) node.stop();
    await Promise.all([api.stopped, jobs.stopped]);
  });
});
