import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { eventCatalog } from '../events/outbox.ts';
import { systemContext } from '../http/context.ts';
import { TestClock } from '../test/clock.ts';
import { createPatient, createTestTenant, startApp, type TestTenant } from '../test/harness.ts';
import { fullFormation, seedFixtures } from '../test/route-fixtures.ts';
import { write } from './write.ts';

/** The unit of work: what a write buffers is written with it, or not at all. */

const clock = new TestClock('2030-05-06T07:08:09.010Z');
const app = await startApp({}, { clock });

async function counts(t: TestTenant) {
  const count = async (table: 'audit_events' | 'events' | 'jobs') =>
    Number(
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE tenant_id = ${t.tenant.id}`.execute(
          app.services.db,
        )
      ).rows[0]!.n,
    );
  return { audit: await count('audit_events'), events: await count('events'), jobs: await count('jobs') };
}

test('a write that fails writes no audit row, no event, no job, and runs no after-commit callback', async () => {
  const t = await createTestTenant(app);
  const ctx = systemContext(app.services, t.tenant, t.instance);
  const before = await counts(t);
  let called = 0;
  await assert.rejects(
    write(ctx, async (w) => {
      await w.db
        .insertInto('server_settings')
        .values({ name: `rolled-back-${randomUUID()}`, value: 'x' })
        .execute();
      w.changed({ action: 'PATIENT_UPDATED', entityType: 'PATIENT', entityId: randomUUID() });
      w.emit({ subtype: 'TASK_STATUS_CHANGED', recordId: randomUUID() });
      w.enqueue({ kind: 'files.remove', payload: { storageKey: 'nothing' } });
      w.afterCommit(() => {
        called += 1;
      });
      throw new Error('the write fails');
    }),
    /the write fails/,
  );
  assert.deepEqual(await counts(t), before);
  assert.equal(called, 0);
  const leaked = await sql`SELECT 1 FROM server_settings WHERE name LIKE 'rolled-back-%'`.execute(app.services.db);
  assert.equal(leaked.rows.length, 0);

  // Over HTTP: a task whose assignee does not exist fails inside its write (400) and leaves nothing.
  const patient = await createPatient(t);
  const afterPatient = await counts(t);
  const refused = await t.api.post(`${t.base}/tasks`, {
    name: 'Call',
    status: 'TODO',
    priority: 'LOW',
    assignee: { id: randomUUID() },
    patient: { id: patient.id },
  });
  assert.equal(refused.status, 400, refused.text);
  assert.deepEqual(await counts(t), afterPatient);
});

test('a write that commits writes its audit rows with their events at its instant, then runs its callbacks once', async () => {
  const t = await createTestTenant(app);
  const ctx = systemContext(app.services, t.tenant, t.instance);
  const patientId = randomUUID();
  const order: string[] = [];
  await write(ctx, async (w) => {
    w.changed({ action: 'PATIENT_UPDATED', entityType: 'PATIENT', entityId: patientId, patientId, changedFields: ['email'] });
    w.emit({ subtype: 'TASK_STATUS_CHANGED', recordId: 'task-1', data: { status: 'COMPLETED' } });
    w.afterCommit(async () => {
      // The write's rows are committed by now: another connection sees them.
      const seen = await sql`SELECT 1 FROM events WHERE tenant_id = ${t.tenant.id} AND event_entity <> 'FORMATION'`.execute(
        app.services.db,
      );
      order.push(`callback saw ${seen.rows.length}`);
    });
    order.push('work');
  });
  assert.deepEqual(order, ['work', 'callback saw 2']);
  const events = await app.services.db
    .selectFrom('events')
    .selectAll()
    .where('tenant_id', '=', t.tenant.id)
    .where('event_entity', '<>', 'FORMATION')
    .orderBy('seq')
    .execute();
  assert.deepEqual(
    events.map((event) => [
      event.event_entity,
      event.event_subtype,
      event.record_id,
      event.patient_id,
      event.instance_id,
      event.actor_type,
      event.occurred_at.toISOString(),
      event.data,
    ]),
    [
      [
        'PATIENT',
        'PATIENT_UPDATED',
        patientId,
        patientId,
        t.instance.id,
        'SYSTEM',
        clock.now().toISOString(),
        { changedFields: ['email'] },
      ],
      [
        'TASK',
        'TASK_STATUS_CHANGED',
        'task-1',
        null,
        t.instance.id,
        'SYSTEM',
        clock.now().toISOString(),
        { status: 'COMPLETED' },
      ],
    ],
  );
  const audit = await app.services.db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', t.tenant.id)
    .where('entity_type', '=', 'PATIENT')
    .execute();
  assert.deepEqual(
    audit.map((row) => [row.action, row.entity_id, row.occurred_at.toISOString()]),
    [['PATIENT_UPDATED', patientId, clock.now().toISOString()]],
  );
});

test('skipEvent: the change is audited, but no event is written', async () => {
  const t = await createTestTenant(app);
  const ctx = systemContext(app.services, t.tenant, t.instance);
  const before = await counts(t);
  await write(
    ctx,
    async (w) => {
      w.changed({ action: 'PATIENT_UPDATED', entityType: 'PATIENT', entityId: randomUUID() });
      w.emit({ subtype: 'TASK_STATUS_CHANGED', recordId: 'x' });
    },
    { skipEvent: true },
  );
  const after = await counts(t);
  assert.equal(after.audit, before.audit + 1);
  assert.equal(after.events, before.events);
});

test("every write of the API emits its events: a patient's create, update and delete", async () => {
  const t = await createTestTenant(app);
  const patient = await createPatient(t, { firstName: 'Private', lastName: 'Person' });
  assert.equal((await t.api.patch(`${t.base}/patients/${patient.id}`, { middleName: 'Q' })).status, 200);
  assert.equal((await t.api.delete(`${t.base}/patients/${patient.id}`)).status, 200);
  const events = await app.services.db
    .selectFrom('events')
    .selectAll()
    .where('tenant_id', '=', t.tenant.id)
    .where('event_entity', '=', 'PATIENT')
    .orderBy('seq')
    .execute();
  assert.deepEqual(
    events.map((event) => [event.event_subtype, event.record_id, event.patient_id, event.actor_id, event.request_id !== null]),
    [
      ['PATIENT_CREATED', patient.id, patient.id, t.adminClient.id, true],
      ['PATIENT_UPDATED', patient.id, patient.id, t.adminClient.id, true],
      ['PATIENT_DELETED', patient.id, patient.id, t.adminClient.id, true],
    ],
  );
  assert.ok(!JSON.stringify(events).includes('Private'));
});

test('every entity of the event catalog is written by the API: one of each record, made over the API, emits them all', async () => {
  const t = await createTestTenant(app, fullFormation());
  await seedFixtures(t, 'events', fullFormation());
  // The access log's seals are the seal job's events, a minute after the reads they seal (those the fixtures' answers wrote).
  clock.advance(2 * 60_000);
  await app.services.jobs.drain({ tenants: [t.tenant.id], kinds: ['access-log.seal'] });
  const written = await app.services.db
    .selectFrom('events')
    .select('event_entity')
    .distinct()
    .where('tenant_id', '=', t.tenant.id)
    .execute();
  assert.deepEqual(written.map((row) => row.event_entity).sort(), [...eventCatalog().keys()].sort());
});
