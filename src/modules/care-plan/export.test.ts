import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/** CARE_PLAN in the bulk export (002 "Export" rule 4): care plans with their goals, moved on by goal changes. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

interface Item {
  id: string;
  patientId: string;
  createdBy: string | null;
  updatedBy: string | null;
  patientOverview: unknown;
  goals: { details: { id: string } }[];
  [key: string]: unknown;
}

const formation = testFormation({
  goalTemplates: [
    {
      name: 'lower-hba1c',
      goalName: 'Lower HbA1c below 7%',
      type: 'CLINICAL',
      priority: 'HIGH',
      taskTemplates: [{ name: 'ttmp-glucose-log', taskName: 'Review the glucose log', dueInDays: 7 }, { name: 'ttmp-diet-plan' }],
    },
    { name: 'plain', goalName: 'A plain goal' },
  ],
});

/** Each item as the care plan's own routes answer: GET care-plan, and GET goal for each of its goals. */
async function assertAsRead(t: TestTenant, items: Item[]) {
  for (const item of items) {
    const { goals, createdBy, updatedBy, ...carePlan } = item;
    const plan = await t.api.get(`${t.base}/patients/${item.patientId}/care-plan`);
    assert.equal(plan.status, 200, plan.text);
    assert.deepEqual(carePlan, plan.body);
    assert.equal(createdBy, t.adminClient.id);
    assert.equal(updatedBy, t.adminClient.id);
    for (const goal of goals) {
      const read = await t.api.get(`${t.base}/patients/${item.patientId}/care-plan/goals/${goal.details.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(goal, read.body);
    }
  }
}

describe('export CARE_PLAN', () => {
  test('each care plan once, oldest update first, with its overview and goals; a goal change moves it to the end', async () => {
    const t = await createTestTenant(app, formation);
    const [ada, bob, cy] = [await createPatient(t), await createPatient(t), await createPatient(t)];
    clock.advance(1);
    const overview = await t.api.post(`${t.base}/patients/${ada.id}/care-plan/overview`, { overview: 'Lives alone' });
    assert.equal(overview.status, 200, overview.text);
    clock.advance(1);
    // A goal makes the care plan it belongs to.
    const goal = await t.api.post(`${t.base}/patients/${bob.id}/care-plan/goals`, { goalTemplateName: 'lower-hba1c' });
    assert.equal(goal.status, 201, goal.text);
    clock.advance(1);
    assert.equal((await t.api.get(`${t.base}/patients/${cy.id}/care-plan`)).status, 200);
    clock.advance(1);
    // A comment on a goal moves its care plan on.
    const comment = await t.api.post(`${t.base}/patients/${bob.id}/care-plan/goals/${goal.body.id}/comments`, {
      text: 'On track',
    });
    assert.equal(comment.status, 201, comment.text);
    clock.advance(SETTLE);

    const items = await walkExport<Item>(t, 'CARE_PLAN');
    assert.deepEqual(
      items.map((item) => item.patientId),
      [ada.id, cy.id, bob.id],
    );
    assert.deepEqual(items[0]!.patientOverview, overview.body);
    assert.deepEqual(items[0]!.goals, []);
    assert.equal(items[1]!.patientOverview, null);
    assert.deepEqual(
      items[2]!.goals.map((entry) => entry.details.id),
      [goal.body.id],
    );
    const [entry] = items[2]!.goals as unknown as { tasks: unknown[]; comments: { id: string }[] }[];
    assert.equal(entry!.tasks.length, 2);
    assert.deepEqual(
      entry!.comments.map((added) => added.id),
      [comment.body.id],
    );
    await assertAsRead(t, items);

    // A new goal moves Ada's care plan to the end, with it; a goal's change moves Bob's after it.
    clock.advance(1);
    const added = await t.api.post(`${t.base}/patients/${ada.id}/care-plan/goals`, { goalTemplateName: 'plain' });
    assert.equal(added.status, 201, added.text);
    clock.advance(1);
    const patched = await t.api.patch(`${t.base}/patients/${bob.id}/care-plan/goals/${goal.body.id}`, { status: 'COMPLETED' });
    assert.equal(patched.status, 200, patched.text);
    clock.advance(SETTLE);
    const after = await walkExport<Item>(t, 'CARE_PLAN');
    assert.deepEqual(
      after.map((item) => item.patientId),
      [cy.id, ada.id, bob.id],
    );
    assert.deepEqual(
      after[1]!.goals.map((entry) => entry.details.id),
      [added.body.id],
    );
    assert.equal((after[2]!.goals[0]!.details as unknown as { status: string }).status, 'COMPLETED');
    await assertAsRead(t, after);
  });

  test('403 ACCESS_DENIED without the export permission', async () => {
    const t = await createTestTenant(app, formation);
    assertCode(await (await t.apiWith(['CARE_PLAN_READ'])).get(`${t.base}/export/CARE_PLAN`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['CARE_PLAN_EXPORT'])).get(`${t.base}/export/CARE_PLAN`)).status, 200);
  });
});
