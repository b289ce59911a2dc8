import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A throwaway PostgreSQL cluster on a loopback port, as .ci/run makes one. */
export interface Cluster {
  url: (database: string) => string;
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => path.join(root, version, 'bin')).find((dir) => fs.existsSync(path.join(dir, 'initdb')));
  if (!found) throw new Error('PostgreSQL is not installed: apt-get install postgresql (or set BENCH_DATABASE_URL)');
  return found;
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startCluster(settings: Record<string, string>): Promise<Cluster> {
  const bin = binDir();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-pg-'));
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
  run(`'${bin}/initdb' -D '${root}/data' -U postgres -A trust --no-sync > /dev/null`);
  run(`'${bin}/pg_ctl' -D '${root}/data' -l '${root}/log' -w start -o "${options.join(' ')}" > /dev/null`);
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop() {
      try {
        run(`'${bin}/pg_ctl' -D '${root}/data' -m fast stop > /dev/null`);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
