import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { areas } from '../../areas.ts';
import { mergeAreas } from '../../platform/area.ts';
import { TestClock } from '../../test/clock.ts';
import { type ExportWalk, walkExport } from '../../test/export-walk.ts';
import { createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';
import { fullFormation, seedFixtures } from '../../test/route-fixtures.ts';

/**
 * The export's invariants for every resource the areas declare: in a tenant with one of every
 * record (the route checks' fixtures), each walk at one record a page, every record updated at
 * one instant, meets each record once, in the order of a single page, ends, and meets a record
 * changed during the walk again at its end; another tenant's records never come.
 */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const formation = fullFormation();
const own = await createTestTenant(app, formation);
const other = await createTestTenant(app, formation);
await seedFixtures(own, 'a', formation);
await seedFixtures(other, 'b', formation);
clock.advance(60_000);

/** The ids a walk of `resource` meets, in order. */
async function idsOf(t: TestTenant, resource: string, walk: ExportWalk) {
  return (await walkExport(t, resource, walk)).map((item) => item.id);
}

/** Sets the update time of every row of `table` in `t` (its column for the export). */
async function stamp(t: TestTenant, table: string, column: string, at: Date, id?: string) {
  await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${at.toISOString()}::timestamptz
    WHERE tenant_id = ${t.tenant.id} ${id ? sql`AND id = ${id}` : sql``}`.execute(app.services.db);
}

describe('every export', () => {
  const sources = [...mergeAreas(areas).declarations.exports];

  test("16 resources, as 002 names them, and Cairn's own access log", () => {
    assert.deepEqual(sources.map(([name]) => name).sort(), [
      'ACCESS_LOG',
      'ASSESSMENT',
      'CALENDAR_EVENT',
      'CARE_PLAN',
      'CDT_RECORD',
      'CHAT',
      'EMAIL',
      'ENCOUNTER',
      'ENCOUNTER_COMMENT',
      'ENCOUNTER_DISPOSITION',
      'MESSAGING_APP',
      'PATIENT',
      'PDT_RECORD',
      'PFA',
      'SMS',
      'TASK',
      'VOICE_CALL',
    ]);
  });

  for (const [name, source] of sources) {
    test(`${name}: one instant, one record a page: each once, in order, to the end; a change meets it again`, async () => {
      const column = source.updatedColumn ?? 'updated_at';
      const instant = clock.now();
      await stamp(own, source.table, column, instant);
      await stamp(other, source.table, column, instant);
      clock.advance(10_000);

      const whole = await idsOf(own, name, { pageSize: 500 });
      if (name !== 'MESSAGING_APP') assert.ok(whole.length > 0, `${name}: the fixtures made none`);
      const foreign = await idsOf(other, name, { pageSize: 500 });
      assert.equal(whole.filter((id) => foreign.includes(id)).length, 0, `${name}: another tenant's records came`);
      assert.deepEqual(await idsOf(own, name, { pageSize: 1 }), whole, `${name}: one a page differs from one page`);
      if (whole.length === 0) return;

      // The first record changes after the first page: it comes again at the end.
      const changed = whole[0]!;
      const seen = await idsOf(own, name, {
        pageSize: 1,
        between: async (page) => {
          if (page !== 0) return;
          clock.advance(1_000);
          await stamp(own, source.table, column, clock.now(), changed);
          clock.advance(10_000);
        },
      });
      // A single record is one page, with no page after it to change it before.
      assert.deepEqual(seen, whole.length > 1 ? [...whole, changed] : whole, `${name}: the walk with a change`);
    });
  }
});
