import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { holdBlobs, releaseBlobs } from '../../files/holds.ts';

/**
 * How `cairn backup` reaches a server running on the embedded database. PGlite is one process's:
 * while it serves, no other process may open its directory. So the server listens on a Unix
 * socket in its data directory (0600: only its own user may ask), and on request copies its
 * database directory at a commit boundary for the backup to read at leisure.
 */
export function operatorSocketPath(dataDir: string): string {
  return path.join(dataDir, 'cairn.sock');
}

type Request = { command: 'snapshot'; to: string; holdUntil: string } | { command: 'release'; holdId: string };
type Answer = { ok: true; holdId?: string } | { ok: false; error: string };

/** Serves the operator socket of a PGlite server; closed with the server. */
export async function listenForOperators(dataDir: string, database: Database): Promise<net.Server> {
  const socketPath = operatorSocketPath(dataDir);
  fs.rmSync(socketPath, { force: true }); // left by a server that died; the data dir's lock says none runs now
  const server = net.createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      const line = buffered.slice(0, end);
      buffered = '';
      answer(dataDir, database, line).then(
        (result) => socket.end(`${JSON.stringify(result)}\n`),
        (error: Error) => socket.end(`${JSON.stringify({ ok: false, error: error.message })}\n`),
      );
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return server;
}

async function answer(dataDir: string, database: Database, line: string): Promise<Answer> {
  const request = JSON.parse(line) as Request;
  if (request.command === 'release') {
    await releaseBlobs(database.db, request.holdId);
    return { ok: true };
  }
  if (request.command !== 'snapshot') return { ok: false, error: 'unknown command' };
  // The pool's one connection, taken between transactions: no statement runs while the files are
  // copied. The hold is written first, so no blob of the copy's file rows goes before the backup
  // has read it; CHECKPOINT puts every page on disk, so the copy opens without replaying much.
  const holdId = await database.db.connection().execute(async (connection) => {
    const id = await holdBlobs(connection, 'backup', new Date(request.holdUntil));
    await sql`CHECKPOINT`.execute(connection);
    await fs.promises.cp(path.join(dataDir, 'pglite'), request.to, { recursive: true });
    return id;
  });
  return { ok: true, holdId };
}

/** Asks the server serving `dataDir`; throws what it answered when it failed. */
export async function askServer(dataDir: string, request: Request): Promise<{ holdId?: string }> {
  const line = await new Promise<string>((resolve, reject) => {
    const socket = net.createConnection(operatorSocketPath(dataDir));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => resolve(received));
    socket.on('error', (error) =>
      reject(new Error(`the server using ${dataDir} did not answer on its operator socket (${error.message})`)),
    );
    socket.write(`${JSON.stringify(request)}\n`);
  });
  const result = JSON.parse(line) as Answer;
  if (!result.ok) throw new Error(`the server refused: ${result.error}`);
  return result;
}
