import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A throwaway PostgreSQL cluster on a loopback port, as .ci/run makes one (the bench and the restart tests). */
export interface Cluster {
  url: (database: string) => string;
  /** `pg_ctl restart -m fast`: every connection is terminated (57P01), as in a routine restart. */
  restart(): void;
  /** Stops the server but keeps its data, for `start()` later; `immediate` is a crash (recovery on start). */
  halt(mode?: 'fast' | 'immediate'): void;
  start(): void;
  stop(): void;
}

/** The newest Debian PostgreSQL's binaries, or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((version) => path.join(root, version, 'bin')).find((dir) => fs.existsSync(path.join(dir, 'initdb')));
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startCluster(settings: Record<string, string> = {}): Promise<Cluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: apt-get install postgresql (or set BENCH_DATABASE_URL)');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pg-'));
  // PostgreSQL refuses to run as root: as root, it runs as the postgres user.
  const asRoot = process.getuid?.() === 0;
  const run = (command: string) => {
    const result = asRoot
      ? spawnSync('su', ['postgres', '-s', '/bin/bash', '-c', command], { encoding: 'utf8' })
      : spawnSync('bash', ['-c', command], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command}\n${result.stderr}`);
  };
  if (asRoot) execFileSync('chown', ['postgres', root]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k '${root}'`,
    '-c listen_addresses=127.0.0.1',
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ];
  const pgCtl = (action: string) => run(`'${bin}/pg_ctl' -D '${root}/data' -l '${root}/log' -w ${action} > /dev/null`);
  run(`'${bin}/initdb' -D '${root}/data' -U postgres -A trust --no-sync > /dev/null`);
  pgCtl(`start -o "${options.join(' ')}"`);
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restart: () => pgCtl(`-m fast restart -o "${options.join(' ')}"`),
    halt: (mode = 'fast') => pgCtl(`-m ${mode} stop`),
    start: () => pgCtl(`start -o "${options.join(' ')}"`),
    stop() {
      try {
        pgCtl('-m fast stop');
      } catch {
        // Already halted.
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
