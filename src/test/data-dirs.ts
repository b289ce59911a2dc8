import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../db/database.ts';

/**
 * A new Cairn data directory (CAIRN_DATA_DIR) for tests that run `cairn` processes on the
 * embedded database. Under `npm test` its database starts as a copy of the runner's migrated
 * template (CAIRN_TEST_TEMPLATE), opened as `cairn` opens it, so a first start skips initdb and
 * the migrations; without the template (a file run on its own) the directory is empty, and the
 * first process migrates it from nothing. The caller removes it.
 */
export async function testDataDir(prefix = 'cairn-data-'): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const template = process.env.CAIRN_TEST_TEMPLATE;
  if (template && !process.env.DATABASE_URL) {
    const database = await openDatabase({
      databaseUrl: '',
      dataDir,
      poolSize: 1,
      loadDataDir: await fs.openAsBlob(template),
    });
    await database.close();
  }
  return dataDir;
}
