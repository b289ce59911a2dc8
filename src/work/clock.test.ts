import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { TestClock } from '../test/clock.ts';
import { createTestTenant, startApp } from '../test/harness.ts';
import { fullFormation, seedFixtures } from '../test/route-fixtures.ts';

/**
 * Every record time comes from the services' clock: with the clock fixed years ahead, one of every
 * kind of record is made over the API (the route checks' fixtures), then every time column of
 * every row the tenant holds is read back. None may carry the machine's time, as a database
 * default or a `new Date()` would.
 */

const fixed = new Date('2031-02-03T04:05:06.789Z');
const app = await startApp({}, { clock: new TestClock(fixed) });

/** Not record times (none today): a column listed here may carry the database's clock. */
const notRecordTimes = new Set<string>([]);

test("every record time of every table is the services' clock's", async () => {
  const t = await createTestTenant(app, fullFormation());
  await seedFixtures(t, 'clock', fullFormation());
  const columns = await sql<{ table_name: string; column_name: string }>`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    WHERE c.table_schema = 'public'
      AND c.data_type IN ('timestamp with time zone', 'ARRAY')
      AND (c.data_type <> 'ARRAY' OR c.udt_name = '_timestamptz')
      AND EXISTS (SELECT 1 FROM information_schema.columns k
                  WHERE k.table_schema = 'public' AND k.table_name = c.table_name AND k.column_name = 'tenant_id')
    ORDER BY 1, 2`.execute(app.services.db);
  const machine = Date.now();
  const wrong: string[] = [];
  let seen = 0;
  for (const { table_name, column_name } of columns.rows) {
    if (notRecordTimes.has(`${table_name}.${column_name}`)) continue;
    const { rows } = await sql<{ at: Date | null }>`
      SELECT unnest(${sql.raw(column_name.endsWith('recent') ? column_name : `ARRAY[${column_name}]`)}) AS at
      FROM ${sql.table(table_name)} WHERE tenant_id = ${t.tenant.id}`.execute(app.services.db);
    for (const { at } of rows) {
      if (at === null) continue;
      seen += 1;
      // A record time is the write's instant; a few are spread by milliseconds to keep an order.
      if (Math.abs(at.getTime() - machine) < 366 * 24 * 60 * 60 * 1000)
        wrong.push(`${table_name}.${column_name} ${at.toISOString()}`);
    }
  }
  assert.ok(seen > 100, `only ${seen} times were read`);
  assert.deepEqual(wrong, []);
  const own = await sql<{ created_at: Date }>`SELECT created_at FROM tenants WHERE id = ${t.tenant.id}`.execute(app.services.db);
  assert.equal(own.rows[0]!.created_at.toISOString(), fixed.toISOString());
});
