import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPatient, createTestTenant, startApp } from '../test/harness.ts';
import { fullFormation } from '../test/route-fixtures.ts';

/**
 * Writes under a patient while the patient is deleted: each write either lands before the delete
 * (2xx, then removed with the patient) or finds no patient (404); a child row never loses its
 * parent mid-write, so nothing answers 500. On PostgreSQL the writes truly race the delete.
 */

const app = await startApp();

describe('writes under a patient racing its deletion', () => {
  test('every patient-scoped write answers 2xx or 404, never a 500', async () => {
    const t = await createTestTenant(app, fullFormation());
    const user = await t.api.post(`${t.admin}/users`, { username: 'race.nurse', email: 'race@example.org' });
    assert.equal(user.status, 201, user.text);
    const assignee = { id: user.body.id };
    const statuses = new Map<string, number[]>();

    for (let round = 0; round < 6; round++) {
      const patient = await createPatient(t);
      const p = `${t.base}/patients/${patient.id}`;
      const goal = await t.api.post(`${p}/care-plan/goals`, { goalTemplateName: 'lower-hba1c' });
      assert.equal(goal.status, 201, goal.text);
      const writes: [string, () => Promise<{ status: number }>][] = [];
      for (let i = 0; i < 4; i++) {
        writes.push(
          ['contact', () => t.api.post(`${p}/contacts`, { name: `Contact ${i}`, relation: 'FRIEND' })],
          ['goal', () => t.api.post(`${p}/care-plan/goals`, { goalTemplateName: 'medication-adherence' })],
          ['goal task', () => t.api.post(`${p}/care-plan/goals/${goal.body.id}/tasks`, taskBody(assignee))],
          ['goal comment', () => t.api.post(`${p}/care-plan/goals/${goal.body.id}/comments`, { text: 'noted' })],
          ['overview', () => t.api.put(`${p}/care-plan/overview`, { overview: `round ${round}` })],
          ['care plan', () => t.api.get(`${p}/care-plan`)],
          ['cdt record', () => t.api.post(`${p}/cdts/vitals`, { 'cdtf-systolic': 120, 'cdtf-diastolic': 80 })],
          ['program', () => t.api.patch(`${p}/programs/diabetes-management`, {})],
        );
      }
      const racing = writes.map(async ([kind, write]) => [kind, (await write()).status] as const);
      const deleted = t.api.delete(p);
      const answers = await Promise.all(racing);
      assert.equal((await deleted).status, 200);
      for (const [kind, status] of answers) statuses.set(kind, [...(statuses.get(kind) ?? []), status]);
      // Nothing is left behind under the deleted patient.
      assert.equal((await t.api.get(`${p}/contacts`)).status, 404);
    }

    for (const [kind, answered] of statuses) {
      const unexpected = answered.filter((status) => !(status >= 200 && status < 300) && status !== 404);
      assert.deepEqual(unexpected, [], `${kind} answered ${unexpected.join(', ')}`);
    }
  });

  test('a task naming a patient in its body answers 2xx or 400 while the patient is deleted', async () => {
    const t = await createTestTenant(app, fullFormation());
    const user = await t.api.post(`${t.admin}/users`, { username: 'race.coordinator', email: 'coord@example.org' });
    const assignee = { id: user.body.id };
    for (let round = 0; round < 4; round++) {
      const patient = await createPatient(t);
      const creates = Array.from({ length: 8 }, () =>
        t.api.post(`${t.base}/tasks`, { ...taskBody(assignee), patient: { id: patient.id } }),
      );
      const deleted = t.api.delete(`${t.base}/patients/${patient.id}`);
      const statuses = (await Promise.all(creates)).map((response) => response.status);
      assert.equal((await deleted).status, 200);
      assert.deepEqual(
        statuses.filter((status) => status !== 201 && status !== 400),
        [],
      );
    }
  });
});

function taskBody(assignee: { id: string }) {
  return { name: 'Call back', status: 'TODO', priority: 'LOW', assignee };
}
