import assert from 'node:assert/strict';
import type { Formation } from '../formation/schemas.ts';
import { type TestTenant, testFormation } from './harness.ts';

/** Shared by this area's tests: a formation with programs, and small request helpers. */

export const programKeys = [
  'assigned',
  'compatibleWithCurrentVersion',
  'createdAt',
  'createdByName',
  'currentPhase',
  'id',
  'pathHistory',
  'patientId',
  'programDescription',
  'programName',
  'programTitle',
  'status',
  'updatedAt',
  'updatedByName',
].sort();

export const phaseKeys = [
  'createdBy',
  'createdByName',
  'currentVersion',
  'deleted',
  'description',
  'name',
  'timestamp',
  'title',
].sort();

export const programs: NonNullable<Formation['programs']> = [
  {
    name: 'diabetes',
    title: 'Diabetes management',
    description: 'Twelve weeks of coaching',
    phases: [
      { name: 'enrolled', title: 'Enrolled', description: 'Consent and baseline', type: 'START', navigateTo: ['coaching'] },
      { name: 'coaching', title: 'Coaching', description: 'Weekly calls', type: 'DEFAULT', navigateTo: [{ name: 'graduated' }] },
      { name: 'maintenance', title: 'Maintenance', type: 'DEFAULT' },
      { name: 'graduated', title: 'Graduated', description: 'Goals met', type: 'FINISH', autoFinishProgram: true },
    ],
  },
  {
    name: 'post-discharge',
    title: 'Post-discharge',
    phases: [
      { name: 'discharged', title: 'Discharged', type: 'START' },
      { name: 'closed', title: 'Closed', type: 'FINISH' },
    ],
  },
  {
    name: 'asthma',
    title: 'Asthma',
    description: 'Inhaler coaching',
    phases: [{ name: 'start', title: 'Start', type: 'START' }],
  },
];

export const programFormation = (extra: Partial<Formation> = {}) => testFormation({ programs, ...extra });

export function programsPath(t: TestTenant, patientId: string) {
  return `${t.base}/patients/${patientId}/programs`;
}

export async function enrol(t: TestTenant, patientId: string, programName: string, body: Record<string, unknown> = {}) {
  const response = await t.api.patch(`${programsPath(t, patientId)}/${programName}`, body);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

/** Publishes `formation` as the next version, as an administrator would. */
export async function publish(t: TestTenant, formation: Formation) {
  const draft = await t.api.put(`${t.base}/formations/draft`, formation);
  assert.equal(draft.status, 200, draft.text);
  const published = await t.api.post(`${t.base}/formations/draft/publish`);
  assert.equal(published.status, 200, published.text);
}
