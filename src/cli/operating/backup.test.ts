import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../../db/database.ts';
import { LocalBlobStore } from '../../files/local-store.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import { cairn, type Installation, newInstallation } from '../../test/installations.ts';
import { call, type Started, startServer } from '../../test/processes.ts';
import { ArchiveWriter, archiveEntries, readBytes, readJson } from './archive.ts';
import type { BackupHeader } from './backup.ts';
import { sha256Of } from './blobs.ts';
import { sequencePosition } from './rows.ts';

/**
 * `cairn backup` while the server serves and writers write (patients; documents with files, some
 * deleted again, whose blob removals run meanwhile), then `cairn restore` into a new installation:
 * every write acknowledged before the backup began is there, every file byte-identical, and the
 * database consistent (every file row has its blob, every care team its patient). On the
 * embedded database the backup goes through the serving process; on a server, through its own
 * snapshot. The outbox's numbers go on from the source's. A second restore into it is refused (not
 * empty), and an archive altered afterwards refused; backups of every format taken on PGlite restore; a files-only backup holds no table.
 */
const DEMO = { CAIRN_DEMO: 'true', CAIRN_DEMO_CLIENT: 'backup-demo-key', CAIRN_DEMO_SECRET: 'backup-demo-secret-0000' };

describe('cairn backup and restore', { timeout: 300_000 }, () => {
  let source: Installation;
  let server: Started;
  let token: string;
  const work: string[] = [];
  const folder = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'cairn-backups-'));

  before(async () => {
    source = await newInstallation();
    // Job workers on: the deletes' blob removals run while the backup holds them.
    server = await startServer(1, { ...source.env, ...DEMO, CAIRN_JOB_WORKERS: '1' });
    const login = await call('POST', `${server.base}/auth/token`, {
      apiClient: DEMO.CAIRN_DEMO_CLIENT,
      secret: DEMO.CAIRN_DEMO_SECRET,
    });
    assert.equal(login.status, 200, login.text);
    token = login.body.token;
  });
  after(async () => {
    server?.stop();
    await server?.stopped;
    await source?.remove();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  interface Written {
    patients: Map<string, number>;
    files: Map<string, { sha256: string; at: number; patientId: string }>;
    deletedAt: Map<string, number>;
  }

  /** Writers until stopped: each write's acknowledgement time (performance.now()). */
  function writers(): { stop(): Promise<void>; written: Written } {
    const written: Written = { patients: new Map(), files: new Map(), deletedAt: new Map() };
    let running = true;
    const base = `${server.base}/demo/sandbox`;
    const auth = { authorization: `Bearer ${token}` };
    const patients = Array.from({ length: 3 }, async (_, writer) => {
      for (let n = 0; running; n++) {
        const created = await call('POST', `${base}/patients`, { firstName: `Backup${writer}`, lastName: `Writer${n}` }, token);
        if (created.status === 201) written.patients.set(created.body.id, performance.now());
      }
    });
    const documents = (async () => {
      const patient = await call('POST', `${base}/patients`, { firstName: 'Document', lastName: 'Holder' }, token);
      for (let n = 0; running; n++) {
        const summary = await call(
          'POST',
          `${base}/patients/${patient.body.id}/document-summary`,
          { type: 'doc-type-others', title: `d${n}` },
          token,
        );
        const content = sampleFile('pdf', 2000 + n);
        const form = multipart([{ name: `scan-${n}.pdf`, content }]);
        const upload = await fetch(`${base}/patients/${patient.body.id}/document-summary/${summary.body.id}/files`, {
          method: 'POST',
          headers: { ...auth, ...form.headers },
          body: form.body,
        });
        const [entry] = (await upload.json()) as { id: string }[];
        assert.equal(upload.status, 201);
        written.files.set(entry!.id, {
          sha256: createHash('sha256').update(content).digest('hex'),
          at: performance.now(),
          patientId: patient.body.id,
        });
        // Every third document goes again: its blob's removal is queued, and held while the backup runs.
        if (n % 3 === 2) {
          const asked = performance.now();
          const deleted = await call(
            'DELETE',
            `${base}/patients/${patient.body.id}/document-summary/${summary.body.id}`,
            undefined,
            token,
          );
          assert.equal(deleted.status, 200, deleted.text);
          written.deletedAt.set(entry!.id, asked);
        }
      }
    })();
    return {
      written,
      async stop() {
        running = false;
        await Promise.all([...patients, documents]);
      },
    };
  }

  test('a backup taken under writes restores every acknowledged write, its files byte for byte, consistently', async () => {
    // A value with what a page's line escapes (a newline, `\\`, `\\b`, `\\n`) and what a record's text quotes.
    const tricky = 'Line\nbreak \\ back\\b \\n "quoted" (paren, comma)';
    const trickyPatient = await call(
      'POST',
      `${server.base}/demo/sandbox/patients`,
      { firstName: tricky, lastName: 'Tricky' },
      token,
    );
    assert.equal(trickyPatient.status, 201, trickyPatient.text);
    const load = writers();
    // Some of each write first (a fixed wait would depend on the machine's speed).
    while (load.written.files.size < 4 || load.written.patients.size < 20) await sleep(50);
    const began = performance.now();
    const file = path.join(folder, 'cairn.tar.gz');
    const said = await cairn(['backup', file], source.env);
    work.push(said);
    await sleep(500);
    await load.stop();
    assert.match(said, /Backed up \d+ tables \(\d+ rows\) and \d+ files/);

    const target = await newInstallation({ empty: true });
    try {
      assert.match(await cairn(['restore', file, '--data-dir', target.dataDir], target.env), /checked against the manifest/);
      const restored = await openInstallation(target);
      try {
        const { patients, files, deletedAt } = load.written;
        const before = [...patients].filter(([, at]) => at < began).map(([id]) => id);
        assert.ok(before.length > 10, `only ${before.length} patients were written before the backup`);
        const found = await restored.db.selectFrom('patients').select('id').where('id', 'in', before).execute();
        assert.equal(found.length, before.length, 'a patient acknowledged before the backup is missing');
        const restoredTricky = await restored.db
          .selectFrom('patients')
          .select('first_name')
          .where('id', '=', trickyPatient.body.id)
          .executeTakeFirstOrThrow();
        assert.equal(restoredTricky.first_name, tricky);

        const kept = [...files].filter(([id, file]) => file.at < began && !((deletedAt.get(id) ?? Infinity) < began));
        assert.ok(kept.length > 0, 'no file was written before the backup');
        const rows = await restored.db.selectFrom('files').select(['id', 'storage_key', 'sha256']).execute();
        const byId = new Map(rows.map((row) => [row.id, row]));
        const blobs = new LocalBlobStore(path.join(target.dataDir, 'files'));
        for (const [id, file] of kept) {
          const row = byId.get(id);
          assert.ok(row, `file ${id}, acknowledged before the backup, is missing`);
          assert.equal(await sha256Of(await blobs.get(row.storage_key)), file.sha256, `file ${id} differs`);
        }
        // Consistent: every file row has its blob, as stored; every care team its patient.
        for (const row of rows)
          assert.equal(await sha256Of(await blobs.get(row.storage_key)), row.sha256, `the blob of ${row.id}`);
        const { rows: orphans } = await sql<{ count: number }>`
          SELECT count(*)::int AS count FROM patient_care_team t
           WHERE NOT EXISTS (SELECT 1 FROM patients p WHERE p.tenant_id = t.tenant_id AND p.id = t.patient_id)`.execute(
          restored.db,
        );
        assert.equal(orphans[0]!.count, 0);
        // The outbox is relayed as it fills, yet its numbers go on from where the source's stood (a
        // webhook's after_seq counts on them): the backup says where, each patient before it having emitted an event.
        const header = await headerOf(file);
        const stood = header.identities?.['events.seq'] ?? 0;
        assert.ok(stood >= before.length, `the backup says the outbox stood at ${stood}`);
        assert.ok((await sequencePosition(restored.db, 'events', 'seq')) >= stood, "the outbox's numbers start again");
      } finally {
        await restored.close();
      }
      await assert.rejects(cairn(['restore', file, '--data-dir', target.dataDir], target.env), /the target is not empty/);
    } finally {
      await target.remove();
    }
  });

  test('a restore refuses an archive whose rows were altered after the backup, naming the table', async () => {
    // The first test's backup, one patient's last name changed in its page (still rows COPY takes).
    const altered = path.join(folder, 'altered.tar.gz');
    const writer = new ArchiveWriter(altered);
    let changed = false;
    for await (const entry of archiveEntries(path.join(folder, 'cairn.tar.gz'))) {
      let bytes = await readBytes(entry);
      if (entry.name.startsWith('tables/patients/') && bytes.includes('Tricky')) {
        bytes = Buffer.from(bytes.toString('utf8').replace('Tricky', 'Tricke'));
        changed = true;
      }
      await writer.addBytes(entry.name, bytes);
    }
    await writer.finish();
    assert.ok(changed, "the backup holds the tricky patient's page");
    const target = await newInstallation({ empty: true });
    try {
      await assert.rejects(
        cairn(['restore', altered, '--data-dir', target.dataDir], target.env),
        /patients: the archive does not hold what the backup wrote/,
      );
    } finally {
      await target.remove();
    }
  });

  // Taken on PGlite (`cairn seed bulk` of 30 patients, with tasks and events) by the releases
  // before, and by this one: each restores on every engine the tests run on.
  const taken = [
    { format: 1, holds: 'a table a file of JSON lines', rows: 220 },
    { format: 2, holds: "pages of record texts in key order, each table's SHA-256 over its pages", rows: 252 },
    { format: 3, holds: "COPY text in PGlite's key order, read back in another engine's", rows: 252 },
  ];
  for (const { format, holds, rows } of taken) {
    test(`a backup of format ${format} (${holds}) restores, checked against its manifest`, async () => {
      const file = fileURLToPath(new URL(`testdata/backup-format-${format}.tar.gz`, import.meta.url));
      const header = await headerOf(file);
      assert.equal(header.format, format);
      const target = await newInstallation({ empty: true });
      try {
        assert.match(
          await cairn(['restore', file, '--data-dir', target.dataDir], target.env),
          new RegExp(`Restored ${rows} rows and 0 files at migration .*checked against the manifest`),
        );
        const restored = await openInstallation(target);
        try {
          const patients = await restored.db
            .selectFrom('patients')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          assert.equal(Number(patients.n), 30);
        } finally {
          await restored.close();
        }
      } finally {
        await target.remove();
      }
    });
  }

  test('a files-only backup holds the blobs the database names, and no table', async () => {
    const file = path.join(folder, 'files-only.tar');
    assert.match(await cairn(['backup', file, '--files-only'], source.env), /Backed up 0 tables \(0 rows\) and [1-9]\d* files/);
  });
});

/** A backup's header (cairn-backup.json), the archive read to its end. */
async function headerOf(file: string): Promise<BackupHeader> {
  let header: BackupHeader | undefined;
  for await (const entry of archiveEntries(file))
    if (entry.name === 'cairn-backup.json') header = await readJson<BackupHeader>(entry);
  assert.ok(header, `${file} has no header`);
  return header;
}

/** The restored installation's database, opened as the server would. */
function openInstallation(installation: Installation): Promise<Database> {
  return openDatabase({ databaseUrl: installation.databaseUrl, dataDir: installation.dataDir, poolSize: 1 });
}
