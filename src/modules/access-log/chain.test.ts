import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { TestClock } from '../../test/clock.ts';
import { Api, assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';
import { startReceiver } from '../../test/receiver.ts';
import { verifyChain } from './chain.ts';

/** The access log kept and trusted: its hash chain, its retention, its export. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const RETENTION_DAYS = 30;
const app = await startApp(
  {},
  {
    clock,
    // Receivers listen on loopback, which webhooks reach only when private addresses are allowed.
    env: { CAIRN_ACCESS_LOG_RETENTION_DAYS: String(RETENTION_DAYS), CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true' },
  },
);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** `reads` reads of a new patient, then the seal job once they have settled. */
async function readAndSeal(t: TestTenant, reads: number, api = t.api): Promise<string> {
  const patient = await api.post(`${t.base}/patients`, { firstName: 'Ada', lastName: 'Quill' });
  assert.equal(patient.status, 201, patient.text);
  for (let i = 0; i < reads; i++) {
    clock.advance(10);
    assert.equal((await api.get(`${t.base}/patients/${patient.body.id}`)).status, 200);
  }
  clock.advance(2 * MINUTE);
  await app.jobs.drain();
  return patient.body.id;
}

/** The admin client with a token issued now (the clock has moved past the first one's hour). */
async function freshApi(t: TestTenant): Promise<Api> {
  const { id, name } = t.adminClient;
  const issued = await app.services.tokens.issue({ type: 'API_CLIENT', id, tenantId: t.tenant.id, name: `API_CLIENT:${name}` });
  return new Api(app.server, issued.token);
}

const verify = (t: TestTenant, publishedHash?: string) =>
  verifyChain(app.services.db, t.tenant.id, { now: clock.now(), retentionDays: RETENTION_DAYS, publishedHash });
const run = (text: string, t: TestTenant) => sql.raw(text.replaceAll(':tenant', `'${t.tenant.id}'`)).execute(app.services.db);

describe('the access log: a hash chain', () => {
  test('settled records are sealed in order; a new seal follows the last; verify finds the chain intact', async () => {
    const t = await createTestTenant(app);
    await readAndSeal(t, 3);
    const first = await verify(t);
    // Each round's create is recorded too: its answer showed the patient.
    assert.deepEqual([first.seals, first.records, first.unsealed, first.broken], [1, 4, 0, null]);
    await readAndSeal(t, 2);
    const second = await verify(t);
    assert.deepEqual([second.seals, second.records, second.broken], [2, 7, null]);
    assert.notEqual(second.head, first.head);
    // A record newer than the settle time waits for a later seal.
    const patient = await createPatient(t, { firstName: 'Bo', lastName: 'Quill' });
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}`)).status, 200);
    await app.jobs.drain();
    assert.deepEqual([(await verify(t)).seals, (await verify(t)).unsealed], [2, 2]);
  });

  test('a record changed, removed or slipped into a sealed range, a seal changed or removed: the first broken link is named', async () => {
    const t = await createTestTenant(app);
    await readAndSeal(t, 3);
    await readAndSeal(t, 3);
    const broken = async () => (await verify(t)).broken;
    const oldest = `(SELECT id FROM access_log WHERE tenant_id = :tenant ORDER BY occurred_at, id LIMIT 1)`;

    const { actor_name: name } = (await run(`SELECT actor_name FROM access_log WHERE id = ${oldest}`, t)).rows[0] as {
      actor_name: string;
    };
    await run(`UPDATE access_log SET actor_name = 'someone else' WHERE tenant_id = :tenant AND id = ${oldest}`, t);
    assert.deepEqual(await broken(), { seq: 1, reason: 'its records differ from what was sealed (a record was changed)' });
    await run(`UPDATE access_log SET actor_name = '${name}' WHERE tenant_id = :tenant AND actor_name = 'someone else'`, t);
    assert.equal(await broken(), null, 'put back as it was, it verifies again');
    await run(`UPDATE access_log_seals SET previous_hash = repeat('a', 64) WHERE tenant_id = :tenant AND seq = 2`, t);
    assert.deepEqual(await broken(), { seq: 2, reason: 'it does not follow the seal before it (a seal was changed)' });

    const u = await createTestTenant(app);
    await readAndSeal(u, 2);
    await run(
      `INSERT INTO access_log SELECT tenant_id, gen_random_uuid(), occurred_at, instance_id, actor_type, actor_id, actor_name,
        on_behalf_of, client_address, request_id, operation, resource_type, '{}', record_ids, outcome
       FROM access_log WHERE tenant_id = :tenant ORDER BY occurred_at, id LIMIT 1`,
      u,
    );
    assert.match((await verify(u)).broken?.reason ?? '', /records were added/);

    const v = await createTestTenant(app);
    await readAndSeal(v, 2);
    await run(
      `DELETE FROM access_log WHERE tenant_id = :tenant AND id = (SELECT id FROM access_log WHERE tenant_id = :tenant LIMIT 1)`,
      v,
    );
    assert.match((await verify(v)).broken?.reason ?? '', /records were removed/);

    const w = await createTestTenant(app);
    await readAndSeal(w, 1);
    await readAndSeal(w, 1);
    await run(`DELETE FROM access_log_seals WHERE tenant_id = :tenant AND seq = 1`, w);
    assert.match((await verify(w)).broken?.reason ?? '', /does not start the chain/);
  });

  test("a record's time moved by less than a millisecond: the seal hashes the time as stored", async () => {
    const t = await createTestTenant(app);
    await readAndSeal(t, 2);
    assert.equal((await verify(t)).broken, null);
    // The new time is worked out first: Citus takes no time arithmetic on a column in an UPDATE.
    const { rows } = await run(
      `SELECT id, (occurred_at + interval '400 microseconds')::text AS moved FROM access_log
       WHERE tenant_id = :tenant ORDER BY occurred_at, id LIMIT 1`,
      t,
    );
    const { id, moved } = rows[0] as { id: string; moved: string };
    await run(`UPDATE access_log SET occurred_at = '${moved}'::timestamptz WHERE tenant_id = :tenant AND id = '${id}'`, t);
    assert.deepEqual((await verify(t)).broken, {
      seq: 1,
      reason: 'its records differ from what was sealed (a record was changed)',
    });
  });

  test('old records and their seals deleted, the next seal marked removed: no retention removal says so, a break', async () => {
    const t = await createTestTenant(app);
    await readAndSeal(t, 1);
    await readAndSeal(t, 1);
    await readAndSeal(t, 1);
    const head = (await verify(t)).head;
    const second = `(SELECT through_at, through_id FROM access_log_seals WHERE tenant_id = :tenant AND seq = 2)`;
    await run(`DELETE FROM access_log WHERE tenant_id = :tenant AND (occurred_at, id) <= ${second}`, t);
    await run(`DELETE FROM access_log_seals WHERE tenant_id = :tenant AND seq = 1`, t);
    await run(`UPDATE access_log_seals SET removed_at = now() WHERE tenant_id = :tenant AND seq = 2`, t);
    const report = await verify(t, head);
    assert.equal(report.head, head, 'the newest hash is the same');
    assert.deepEqual(report.broken, {
      seq: 2,
      reason: 'the seals before it and their records were removed, and no retention removal in the chain says so',
    });
  });

  test('each seal is published (an event webhooks deliver); the newest seal deleted with its records is caught by its published hash', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    const hook = await t.api.post(`${t.admin}/webhooks`, {
      name: 'seals',
      url: `${receiver.url}/seals`,
      eventSubtypes: ['ACCESS_LOG_SEALED'],
    });
    assert.equal(hook.status, 201, hook.text);
    await readAndSeal(t, 2);
    await readAndSeal(t, 1);
    await app.jobs.drain();
    const sealed = receiver.received.filter((request) => request.json.type === 'ACCESS_LOG_SEALED');
    assert.deepEqual(
      sealed.map((request) => [request.json.details.seq, request.json.details.records, request.json.details.kind]),
      [
        [1, 3, 'RECORDS'],
        [2, 2, 'RECORDS'],
      ],
    );
    const published = sealed[1]!.json.details.hash as string;
    const report = await verify(t, published);
    assert.deepEqual([report.broken, report.head], [null, published]);
    const newest = `(SELECT through_at, through_id FROM access_log_seals WHERE tenant_id = :tenant AND seq = 1)`;
    await run(`DELETE FROM access_log WHERE tenant_id = :tenant AND (occurred_at, id) > ${newest}`, t);
    await run(`DELETE FROM access_log_seals WHERE tenant_id = :tenant AND seq = 2`, t);
    assert.equal((await verify(t)).broken, null, 'without the published hash the shorter chain looks whole');
    assert.match((await verify(t, published)).broken?.reason ?? '', /^the published hash [0-9a-f]{64} is not in the chain/);
  });

  test('no route changes or removes a record: the log has only reads', async () => {
    const writes = [...app.accessTable.keys()].filter((route) => route.includes('access-log') && !route.startsWith('GET '));
    assert.deepEqual(writes, []);
  });
});

describe('the access log: retention', () => {
  test('records older than the retention go whole seals at a time, the removal is recorded, and the chain still verifies', async () => {
    const t = await createTestTenant(app);
    const old = await readAndSeal(t, 2);
    clock.advance((RETENTION_DAYS - 1) * DAY);
    const api = await freshApi(t);
    const recent = await readAndSeal(t, 1, api);
    clock.advance(2 * DAY);
    await app.jobs.drain();
    const log = await (await freshApi(t)).get(`${t.admin}/access-log?size=100`);
    assert.equal(log.status, 200, log.text);
    const records = log.body.data as Record<string, any>[];
    const removal = records.find((record) => record.operation === 'access-log.retention');
    assert.ok(removal, 'the removal is recorded');
    assert.deepEqual([removal.actorType, removal.resourceType, removal.patientIds], ['SYSTEM', 'ACCESS_LOG', []]);
    assert.deepEqual(removal.recordIds.slice(0, 1).concat(removal.recordIds.slice(2)), [
      'through-seal:1',
      'records:3',
      `retention-days:${RETENTION_DAYS}`,
    ]);
    assert.equal(records.filter((record) => record.patientIds.includes(old)).length, 0, 'the old reads are gone');
    assert.equal(
      records.filter((record) => record.patientIds.includes(recent)).length,
      2,
      'the recent ones (its create, its read) are kept',
    );
    assert.equal((await (await freshApi(t)).get(`${t.base}/patients/${old}/access-log`)).body.data.length, 0);
    clock.advance(2 * MINUTE);
    await app.jobs.drain();
    const report = await verify(t);
    assert.equal(report.broken, null);
    assert.deepEqual(
      [report.records, report.unsealed, report.removals],
      [3, 0, 1],
      'the recent create and read and the removal record are sealed after the anchor, and the removal is a seal of the chain',
    );
    // A removal keeping less than the retention in force is a break, even one the chain records.
    assert.match(
      (await verifyChain(app.services.db, t.tenant.id, { now: clock.now(), retentionDays: 90 })).broken?.reason ?? '',
      /kept 30 days, less than the retention of 90/,
    );
  });

  test('records go only through a seal older than the retention: the removal refuses a younger one', async () => {
    const t = await createTestTenant(app);
    await readAndSeal(t, 1);
    const seal = (await run(`SELECT seq, hash, through_at, through_id FROM access_log_seals WHERE tenant_id = :tenant`, t))
      .rows[0] as { seq: number; hash: string; through_at: Date; through_id: string };
    const removal = {
      anchor: Number(seal.seq),
      throughAt: seal.through_at.toISOString(),
      throughId: seal.through_id,
      records: 1,
      retentionDays: RETENTION_DAYS,
    };
    await assert.rejects(
      sql`SELECT cairn_access_log_remove(${t.tenant.id}, ${removal.anchor}, ${removal.anchor + 1}, ${seal.hash}, ${'0'.repeat(64)},
        ${JSON.stringify(removal)}::jsonb, ${clock.now()}, '{}'::jsonb)`.execute(app.services.db),
      /only a seal older than the retention is removed/,
    );
    assert.equal((await verify(t)).broken, null);
  });
});

describe('the access log: export', () => {
  test('API clients export it under ACCESS_LOG_EXPORT, oldest first; without it 403', async () => {
    const t = await createTestTenant(app);
    await readAndSeal(t, 2);
    const page = await t.api.get(`${t.base}/export/ACCESS_LOG?pageSize=10`);
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.data.length, 3, 'the create and two reads');
    assert.ok(page.body.data[0].occurredAt < page.body.data[1].occurredAt);
    assert.deepEqual(
      Object.keys(page.body.data[0]).sort(),
      [
        'actorId',
        'actorName',
        'actorType',
        'clientAddress',
        'id',
        'instanceId',
        'occurredAt',
        'onBehalfOf',
        'operation',
        'outcome',
        'callerRequestId',
        'matched',
        'patientIds',
        'recordIds',
        'requestId',
        'resourceType',
      ].sort(),
    );
    assertCode(
      await (await t.apiWith(['ACCESS_LOG_READ', 'PATIENT_EXPORT'])).get(`${t.base}/export/ACCESS_LOG`),
      403,
      'ACCESS_DENIED',
    );
    // Exporting the log is not itself logged: it holds no patient data.
    assert.equal((await t.api.get(`${t.admin}/access-log?size=100`)).body.data.length, 3);
  });
});
