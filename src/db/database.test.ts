import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DataDirLockedError, openDatabase } from './database.ts';

test('a PGlite data directory is locked: a second opener is refused, a stale lock is taken over', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-lock-'));
  try {
    // A lock left by a process that no longer runs does not stop a new start.
    fs.writeFileSync(path.join(dataDir, 'cairn.lock'), '2147483646');
    const first = await openDatabase({ databaseUrl: '', dataDir, poolSize: 1 });
    await assert.rejects(openDatabase({ databaseUrl: '', dataDir, poolSize: 1 }), DataDirLockedError);
    await first.close();
    assert.equal(fs.existsSync(path.join(dataDir, 'cairn.lock')), false);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
