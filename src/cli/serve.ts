import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import { accessLogWritable } from '../db/roles.ts';
import { serveMetricsForWorkers } from '../http/metrics.ts';
import { scryptConcurrencyFor } from '../tenancy/secrets.ts';
import { ensureDemoTenant, openMigrated, tokenHowTo } from './bootstrap.ts';
import { heapFlags } from './heap.ts';
import { listenForOperators } from './operating/operator-socket.ts';

/**
 * `cairn serve [--workers N]`. The primary migrates and bootstraps once; with N > 1 it then
 * forks N workers that share the port and the database, and replaces any that die. Each serving
 * process also runs job workers (CAIRN_JOB_WORKERS at once; 0 for an API-only node). The app is
 * imported only by the process that serves, so a cluster's primary does not hold it.
 */
export async function serve(config: Config, workers: number): Promise<void> {
  if (workers > 1 && !config.databaseUrl) {
    throw new Error('--workers needs DATABASE_URL: the embedded PGlite database belongs to one process');
  }
  if (cluster.isWorker) return runServer(config);

  const database = await openMigrated(config);
  if (await accessLogWritable(database.db, database.kind)) {
    console.error(
      'access log: this role may change or remove its records; serve as a role made with `cairn database grant <role>` (docs/operating.md)',
    );
  }
  const demo = config.demo.enabled ? await ensureDemoTenant(config, database) : undefined;
  if (workers <= 1) {
    const { buildApp } = await import('../app.ts');
    const { server, services } = await buildApp({ config, database });
    // The embedded database is this process's alone: a backup asks it through its operator socket.
    // A socket it cannot make (a path too long for one) costs only backups while serving.
    const operators =
      database.kind === 'pglite'
        ? await listenForOperators(config.dataDir, database).catch((error: Error) => {
            console.error(`no operator socket (cairn backup needs the server stopped): ${error.message}`);
            return undefined;
          })
        : undefined;
    stopOnSignals(async () => {
      operators?.close();
      await server.close();
      await database.close();
    });
    await server.listen({ port: config.port, host: config.host });
    await services.caches.start();
    await services.jobs.start();
    if (demo) process.stdout.write(tokenHowTo(config, demo));
    return;
  }

  await database.close();
  serveMetricsForWorkers();
  cluster.setupPrimary({ execArgv: [...process.execArgv, ...heapFlags(config.workerHeapMb, config.workerHeapFloorMb)] });
  // Each worker's share of the machine's cores for scrypt, unless the operator set it.
  const scrypt = { CAIRN_SCRYPT_CONCURRENCY: String(scryptConcurrencyFor(config.scryptConcurrency, workers)) };
  let stopping = false;
  let listening = 0;
  cluster.on('listening', () => {
    listening += 1;
    if (listening === workers && demo) process.stdout.write(tokenHowTo(config, demo));
  });
  const replace = replacementPolicy();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const delay = replace.delayAfterExit(worker.id);
    console.error(`worker ${worker.id} exited (${signal ?? code}); starting another in ${delay} ms`);
    setTimeout(() => {
      if (!stopping) replace.forked(cluster.fork(scrypt));
    }, delay);
  });
  for (let i = 0; i < workers; i++) replace.forked(cluster.fork(scrypt));
  stopOnSignals(async () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
  });
}

/**
 * A worker that dies soon after it started (its database is down, say) is replaced after a
 * growing pause (0.5 s doubling to 30 s), so a long outage does not become a fork loop; one that
 * ran for a minute is replaced at once.
 */
function replacementPolicy() {
  const startedAt = new Map<number, number>();
  let quickExits = 0;
  return {
    forked(worker: { id: number }) {
      startedAt.set(worker.id, Date.now());
    },
    delayAfterExit(workerId: number): number {
      const lived = Date.now() - (startedAt.get(workerId) ?? 0);
      startedAt.delete(workerId);
      quickExits = lived < 60_000 ? quickExits + 1 : 0;
      return quickExits === 0 ? 0 : Math.min(500 * 2 ** (quickExits - 1), 30_000);
    },
  };
}

async function runServer(config: Config): Promise<void> {
  const database = await openMigrated(config);
  const { buildApp } = await import('../app.ts');
  const { server, services } = await buildApp({ config, database });
  stopOnSignals(async () => {
    await server.close();
    await database.close();
  });
  await server.listen({ port: config.port, host: config.host });
  await services.caches.start();
  await services.jobs.start();
}

function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
