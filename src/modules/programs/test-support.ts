import assert from 'node:assert/strict';
import { errorCode, type Response, type TestApp, type TestTenant, testFormation } from '../../test/harness.ts';
import type { Formation } from '../formation/schemas.ts';

/** Shared by this area's tests: a formation with programs, and small request helpers. */

export const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

export async function createPatient(t: TestTenant, body: Record<string, unknown> = {}) {
  const response = await t.api.post(`${t.base}/patients`, { firstName: 'Ada', lastName: 'Lovelace', ...body });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string } & Record<string, unknown>;
}

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

export async function clientName(app: TestApp, clientId: string): Promise<string> {
  const row = await app.services.db.selectFrom('api_clients').select('name').where('id', '=', clientId).executeTakeFirstOrThrow();
  return row.name;
}

export async function auditOf(t: TestTenant, patientId: string) {
  const response = await t.api.get(`${t.admin}/audit-data?patientId=${patientId}&entityType=PATIENT_PROGRAM&size=100`);
  assert.equal(response.status, 200, response.text);
  return response.body.data as {
    action: string;
    entityType: string;
    entityId: string;
    patientId: string;
    changedFields: string[] | null;
  }[];
}

export function assertCode(response: Response, status: number, code: string, label = '') {
  assert.equal(response.status, status, `${label}: ${response.status} ${response.text}`);
  assert.equal(errorCode(response), code, label);
}

export function assertValidation(response: Response, path: string, label = '') {
  assertCode(response, 400, 'VALIDATION_ERROR', label);
  const paths = detailsOf(response).errors?.map((e) => e.path) ?? [];
  assert.ok(
    paths.some((p: string) => p === path || p.startsWith(`${path}.`)),
    `${label}: expected an error at ${path}, got ${JSON.stringify(paths)}`,
  );
}

type ErrorDetails = Record<string, unknown> & { errors?: { path: string }[] };

export function detailsOf(response: Response): ErrorDetails {
  return (response.body as { details: ErrorDetails }[])[0]!.details;
}
