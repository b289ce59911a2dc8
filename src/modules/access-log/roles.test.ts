import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../app.ts';
import { openDatabase } from '../../db/database.ts';
import { accessLogWritable, grantServing } from '../../db/roles.ts';
import { TestClock } from '../../test/clock.ts';
import { Api, createPatient, createTestTenant, startApp } from '../../test/harness.ts';
import { verifyChain } from './chain.ts';
import { sealTenant } from './index.ts';
import { removeExpired } from './retention.ts';

/**
 * The role Cairn serves with may not change or remove an access record; only the retention's
 * removal may, through `cairn_access_log_remove` and its owner's rights (DECISIONS "Access log").
 * On PostgreSQL and Citus: the embedded database has no roles.
 */

const url = process.env.DATABASE_URL;
const RETENTION_DAYS = 30;
const DAY = 86_400_000;

describe('the serving role and the access log', { skip: !url && 'roles exist on PostgreSQL and Citus only' }, () => {
  test('a role made with `cairn database grant` serves, records reads, cannot change or remove a record; retention still removes', async () => {
    const clock = new TestClock('2026-03-01T12:00:00.000Z');
    const owner = await startApp({}, { clock });
    const role = `cairn_serving_${randomBytes(4).toString('hex')}`;
    await sql`CREATE ROLE ${sql.id(role)} LOGIN`.execute(owner.services.db);
    after(async () => {
      await sql`DROP OWNED BY ${sql.id(role)}`.execute(owner.services.db);
      await sql`DROP ROLE ${sql.id(role)}`.execute(owner.services.db);
    });
    assert.equal(await accessLogWritable(owner.services.db, owner.services.dbKind), true, 'the owner may: it should not serve');
    await grantServing(owner.services.db, role);

    const servingUrl = new URL(url!);
    servingUrl.username = role;
    servingUrl.password = '';
    const database = await openDatabase({ databaseUrl: servingUrl.toString(), dataDir: '', poolSize: 2 });
    const serving = await buildApp({ config: owner.config, database, clock });
    after(async () => {
      await serving.server.close();
      await database.close();
    });
    assert.equal(await accessLogWritable(database.db, database.kind), false);

    const t = await createTestTenant(owner);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const api = new Api(serving.server, t.adminClient.token);
    const read = await api.get(`${t.base}/patients/${patient.id}`);
    assert.equal(read.status, 200, read.text);
    const mine = sql`tenant_id = ${t.tenant.id}`;
    const records = await sql<{ id: string }>`SELECT id FROM access_log WHERE ${mine}`.execute(database.db);
    assert.equal(records.rows.length, 2, 'the create and the read, written by the serving role');

    for (const statement of [
      sql`UPDATE access_log SET actor_name = 'someone else' WHERE ${mine}`,
      sql`DELETE FROM access_log WHERE ${mine}`,
      sql`TRUNCATE access_log`,
      sql`DELETE FROM access_log_seals WHERE ${mine}`,
      sql`UPDATE access_log_seals SET removed_at = now() WHERE ${mine}`,
    ]) {
      await assert.rejects(statement.execute(database.db), (error: { code?: string }) => error.code === '42501');
    }

    // Sealed, then older than the retention: the serving role's job removes them through the function.
    clock.advance(2 * 60_000);
    assert.equal(await sealTenant(serving.services, t.tenant.id), 2);
    clock.advance((RETENTION_DAYS + 1) * DAY);
    assert.equal(await removeExpired(serving.services, t.tenant.id, RETENTION_DAYS), 2);
    const left = await sql<{ operation: string }>`SELECT operation FROM access_log WHERE ${mine}`.execute(database.db);
    assert.deepEqual(
      left.rows.map((row) => row.operation),
      ['access-log.retention'],
    );
    const report = await verifyChain(database.db, t.tenant.id, { now: clock.now(), retentionDays: RETENTION_DAYS });
    assert.deepEqual([report.broken, report.removals], [null, 1]);
  });
});
