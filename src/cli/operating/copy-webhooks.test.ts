import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { createPatient, createTestTenant } from '../../test/harness.ts';
import { cairn, LOOPBACK_WEBHOOKS, openApp, startS3 } from '../../test/installations.ts';
import { call, startServer } from '../../test/processes.ts';
import { type Received, startReceiver } from '../../test/receiver.ts';
import { scratchSchema } from '../../test/scratch-schema.ts';

/**
 * A move as an operator makes it: the original served, so its events were relayed and delivered
 * (its outbox is empty) when it stopped; `cairn copy --to postgres://… --files-to s3://…`; then
 * `cairn serve` on the copy, job workers on, with the settings the original ran with. A patient
 * made on the copy reaches the subscription made on the original within seconds, signed with the
 * original's secret.
 */
const skip = process.env.DATABASE_URL ? false : 'copies into PostgreSQL: runs in the PostgreSQL and Citus legs';

/** Waits (real time: the copy is a real server) for a delivery about the record. */
async function deliveryOf(received: Received[], recordId: string, ms: number): Promise<Received | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = received.find((delivery) => delivery.json.recordId === recordId);
    if (found || Date.now() > deadline) return found;
    await sleep(100);
  }
}

describe('a copy served', { skip, timeout: 300_000 }, () => {
  test("delivers the original's webhooks, signed with its secret, once the original's outbox was relayed", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-served-'));
    const copiedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-served-copy-'));
    after(() => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(copiedDir, { recursive: true, force: true });
    });
    const s3 = await startS3('cairn-served');
    const { url: targetUrl } = await scratchSchema(process.env.DATABASE_URL!, 'cairn_install');
    const sourceEnv = { CAIRN_DATA_DIR: dataDir, DATABASE_URL: '' };

    // The original: a subscription, patients whose events it relayed and delivered, as a server does.
    const original = await openApp(sourceEnv);
    const t = await createTestTenant(original);
    const receiver = await startReceiver();
    const hook = await t.api.post(`${t.admin}/webhooks`, {
      name: 'moved',
      url: `${receiver.url}/hook`,
      eventEntities: ['PATIENT'],
    });
    assert.equal(hook.status, 201, hook.text);
    for (let i = 0; i < 3; i++) await createPatient(t, { firstName: 'Before', lastName: `Move ${i}` });
    await original.jobs.drain();
    assert.equal(receiver.received.length, 3, 'the original delivered its own events');
    const { rows: outbox } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM events`.execute(original.services.db);
    assert.equal(outbox[0]!.n, 0, "the original's outbox is relayed");
    await original.close();

    const env = { ...process.env, ...sourceEnv, ...s3.credentials, LOG_LEVEL: 'warn' };
    assert.match(await cairn(['copy', '--to', targetUrl, '--files-to', s3.url], env), /Finished the copy/);

    // `cairn serve` on the copy, as the operator starts it: job workers on, the original's settings.
    const served = await startServer(1, {
      ...process.env,
      ...s3.env,
      ...LOOPBACK_WEBHOOKS,
      DATABASE_URL: targetUrl,
      CAIRN_DATA_DIR: copiedDir,
      CAIRN_DEMO: 'false',
      CAIRN_JOB_WORKERS: '2',
      LOG_LEVEL: 'warn',
    });
    after(async () => {
      served.stop();
      await served.stopped;
    });
    receiver.clear();
    const made = await call(
      'POST',
      `${served.base}${t.base}/patients`,
      { firstName: 'After', lastName: 'Move' },
      t.adminClient.token,
    );
    assert.equal(made.status, 201, made.text);
    const delivery = await deliveryOf(receiver.received, made.body.id, 15_000);
    assert.ok(delivery, `the copy delivered nothing about the patient made on it:\n${served.output()}`);
    assert.equal(delivery.json.eventSubtype, 'PATIENT_CREATED');
    assert.doesNotThrow(() => new Webhook(hook.body.secret).verify(delivery.body, delivery.headers));
  });
});
