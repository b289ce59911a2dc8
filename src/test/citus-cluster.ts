import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { postgresBinDir } from './postgres-cluster.ts';

/**
 * A Citus cluster of a test's own (a coordinator and two workers, from shared/citus/cluster.sh on
 * loopback ports, fsync off), for a test that stops a worker: the suite's cluster is shared by the
 * test files running beside it, which a stopped worker would break.
 */
export interface OwnCluster {
  /** The coordinator's URL. */
  url: string;
  /** The worker (1 or 2) holding a tenant's shards. */
  workerOf<DB>(db: Kysely<DB>, tenantId: string): Promise<number>;
  /** A crash of the worker's server (`pg_ctl stop -m immediate`). */
  stopWorker(worker: number): void;
  startWorker(worker: number): void;
  destroy(): void;
}

function scripts(): string | undefined {
  const root = path.resolve(import.meta.dirname, '../..');
  return [path.join(root, '../shared/citus'), '/work/shared/citus'].find((dir) => fs.existsSync(path.join(dir, 'cluster.sh')));
}

/** Why a cluster of its own cannot be made here, or undefined when it can. */
export function ownClusterUnavailable(): string | undefined {
  const bin = postgresBinDir();
  if (!bin) return 'PostgreSQL is not installed';
  if (!fs.existsSync(path.join(bin, '../lib/citus.so'))) return 'Citus is not installed (shared/citus/install.sh)';
  if (!scripts()) return 'shared/citus/cluster.sh is not beside the project';
  return undefined;
}

async function free(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Three free ports in a row: the coordinator's and its two workers'. */
async function freePorts(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await free(base)) && (await free(base + 1)) && (await free(base + 2))) return base;
  }
  throw new Error('no three free ports in a row');
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-citus-test-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) spawnSync('chown', ['postgres', dir]);
  const port = await freePorts();
  const env = { ...process.env, CITUS_DIR: path.join(dir, 'cluster'), CITUS_PORT: String(port), CITUS_FAST: '1' };
  const cluster = (action: string) => spawnSync('bash', [path.join(scripts()!, 'cluster.sh'), action], { env, encoding: 'utf8' });
  const pgCtl = (worker: number, action: string) => {
    const command = `'${postgresBinDir()}/pg_ctl' -D '${dir}/cluster/w${worker}' -l '${dir}/cluster/w${worker}.log' -w ${action} > /dev/null`;
    const result = asRoot
      ? spawnSync('su', ['postgres', '-s', '/bin/bash', '-c', command], { encoding: 'utf8' })
      : spawnSync('bash', ['-c', command], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command}\n${result.stderr}`);
  };
  const destroy = () => {
    cluster('destroy');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const started = cluster('start');
  if (started.status !== 0) {
    destroy();
    throw new Error(`the Citus cluster did not start:\n${started.stdout}${started.stderr}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async workerOf(db, tenantId) {
      const { rows } = await sql<{ port: number }>`
        SELECT n.nodeport AS port FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
        WHERE p.shardid = get_shard_id_for_distribution_column('jobs', ${tenantId}::uuid)`.execute(db);
      return rows[0]!.port - port;
    },
    stopWorker: (worker) => pgCtl(worker, '-m immediate stop'),
    startWorker: (worker) => pgCtl(worker, 'start'),
    destroy,
  };
}
