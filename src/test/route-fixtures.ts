import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'kysely';
import type { Formation } from '../formation/schemas.ts';
import { multipart, sampleFile } from './files.ts';
import { type Response, type TestApp, type TestTenant, testFormation } from './harness.ts';

/**
 * Fixtures for the generated route checks (src/http/route-checks.test.ts): one of each kind of
 * record, made over the API in a tenant, and a snapshot of everything a tenant holds.
 */

/** The demo formation (every section), with the harness roles `admin` and `nothing` merged in. */
export function fullFormation(): Formation {
  const demo = JSON.parse(fs.readFileSync(new URL('../../formations/demo.json', import.meta.url), 'utf8')) as Formation;
  return testFormation(demo);
}

export type FixtureKind =
  | 'tenant'
  | 'instance'
  | 'apiClient'
  | 'user'
  | 'patient'
  | 'carePlan'
  | 'task'
  | 'taskComment'
  | 'enrollment'
  | 'goal'
  | 'goalComment'
  | 'goalTask'
  | 'pdtRecord'
  | 'contact'
  | 'cdtRecord'
  | 'dictionaryRecord'
  | 'documentSummary'
  | 'documentFile'
  | 'documentTypeRecord'
  | 'assessmentRecord';

export interface Fixtures {
  ids: Record<FixtureKind, string>;
  /** Keys that also find a record: the user's username and email, the patient's externalId, MRN, externalGuid. */
  alternateKeys: string[];
  username: string;
  /** Formation names the fixtures use. */
  names: {
    program: string;
    goalTemplate: string;
    pdt: string;
    cdt: string;
    dictionary: string;
    documentType: string;
    assessment: string;
  };
  /** A text every fixture of the tenant carries, to spot its data in another tenant's answers. */
  marker: string;
  /** The bodies that made the fixtures, by operation (`POST /{tenantName}/...`): bodies known to be good. */
  bodies: Record<string, unknown>;
}

function created(response: Response, label: string): any {
  assert.ok(response.status === 200 || response.status === 201, `${label}: ${response.status} ${response.text}`);
  return response.body;
}

/** Seeds a tenant made with `fullFormation()`: a user, a patient and everything about them. */
export async function seedFixtures(t: TestTenant, tag: string, formation: Formation): Promise<Fixtures> {
  const marker = `zz${tag}mark`;
  const bodies: Record<string, unknown> = {};
  const I = '/{tenantName}/{instanceName}';
  const A = '/{tenantName}/admin';
  const P = `${I}/patients/{patientId}`;
  const call = async (method: 'POST' | 'PUT' | 'PATCH', template: string, url: string, body: unknown) => {
    bodies[`${method} ${template}`] = body;
    return created(await t.api.request(method, url, body), `${method} ${url}`);
  };

  const program = formation.programs![0]!.name;
  const goalTemplate = formation.goalTemplates![0]!.name;
  const pdt = formation.pdts!.find((type) => type.contactable)!;
  const cdt = formation.cdts!.find((type) => type.type === 'MULTI_RECORD')!;
  const dictionary = formation.dictionaries!.find((d) => !d.internal)!;
  const region = formation.territories![0]!;

  const username = `${marker}-user`;
  const email = `${marker}@example.org`;
  const user = await call('POST', `${A}/users`, `${t.admin}/users`, {
    username,
    email,
    firstName: `First ${marker}`,
    lastName: `Last ${marker}`,
    roles: [{ permissionName: 'admin', instanceName: t.instance.name, primaryRole: true }],
  });
  await call('PUT', `${A}/user-territories/{userId}`, `${t.admin}/user-territories/${user.id}`, {
    userId: user.id,
    territories: [{ name: region.name, territories: [region.territories[0]], instanceName: t.instance.name }],
  });

  const externalId = `${marker}-eid`;
  const mrn = `${marker}-mrn`;
  const externalGuid = randomUUID();
  const patient = await call('POST', `${I}/patients`, `${t.base}/patients`, {
    firstName: `Pat ${marker}`,
    lastName: `Ient ${marker}`,
    birthDate: '1970-01-02',
    externalId,
    mrn,
    externalGuid,
    careTeam: [{ id: user.id, pointOfContact: true }],
  });
  const patientUrl = `${t.base}/patients/${patient.id}`;
  await call('POST', `${P}/care-plan/overview`, `${patientUrl}/care-plan/overview`, { overview: `Overview ${marker}` });
  const carePlan = created(await t.api.get(`${patientUrl}/care-plan`), 'care plan');

  const task = await call('POST', `${I}/tasks`, `${t.base}/tasks`, {
    name: `Task ${marker}`,
    description: `About ${marker}`,
    status: 'TODO',
    priority: 'HIGH',
    assignee: { id: user.id },
    patient: { id: patient.id },
    watchers: [{ id: user.id }],
  });
  const commented = await call('PATCH', `${I}/tasks/{taskId}/comments`, `${t.base}/tasks/${task.id}/comments`, {
    text: `Comment ${marker}`,
  });
  bodies[`PATCH ${I}/tasks/{taskId}/watchers`] = { id: user.id };

  const enrollment = await call('PATCH', `${P}/programs/{programName}`, `${patientUrl}/programs/${program}`, {
    status: 'IN_PROGRESS',
  });

  const goal = await call('POST', `${P}/care-plan/goals`, `${patientUrl}/care-plan/goals`, { goalTemplateName: goalTemplate });
  const goalUrl = `${patientUrl}/care-plan/goals/${goal.id}`;
  const goalComment = await call('POST', `${P}/care-plan/goals/{goalId}/comments`, `${goalUrl}/comments`, {
    text: `Goal comment ${marker}`,
  });
  const goalTask = await call('POST', `${P}/care-plan/goals/{goalId}/tasks`, `${goalUrl}/tasks`, {
    name: `Goal task ${marker}`,
    status: 'TODO',
    priority: 'LOW',
    assignee: { id: user.id },
  });

  const pdtValues: Record<string, unknown> = {};
  for (const field of pdt.fields ?? []) {
    if (field.type === 'email') pdtValues[field.name] = `${marker}.pdt@example.org`;
    else if (field.type === 'phone') pdtValues[field.name] = '+14155550123';
    else pdtValues[field.name] = `${field.name} ${marker}`;
  }
  const pdtRecord = await call('POST', `${I}/pdts/{pdtName}`, `${t.base}/pdts/${pdt.name}`, pdtValues);
  const contact = await call('POST', `${P}/contacts`, `${patientUrl}/contacts`, {
    name: `Contact ${marker}`,
    relation: 'daughter',
    pdtRecordId: pdtRecord.id,
  });

  const cdtValues: Record<string, unknown> = {};
  for (const field of cdt.fields ?? []) {
    if (field.type === 'integer') cdtValues[field.name] = 120;
    else if (field.type === 'datetime') cdtValues[field.name] = '2024-05-06T07:08:09.123Z';
    else if (field.type === 'select') cdtValues[field.name] = field.options?.[0];
    else cdtValues[field.name] = `${field.name} ${marker}`;
  }
  const cdtRecord = await call('POST', `${P}/cdts/{cdtName}`, `${patientUrl}/cdts/${cdt.name}`, cdtValues);
  await call('PATCH', `${P}/cdts/{cdtName}`, `${patientUrl}/cdts/${cdt.name}`, {
    rows: [{ id: cdtRecord.id, jsonBody: cdtValues }],
  });

  const documentType = 'doc-type-others';
  const summary = await call('POST', `${P}/document-summary`, `${patientUrl}/document-summary`, {
    type: documentType,
    sourceId: randomUUID(),
    sourceType: marker,
    sourceName: marker,
  });
  const summaryUrl = `${patientUrl}/document-summary/${summary.id}`;
  const upload = multipart([{ name: `${marker}.png`, content: sampleFile('png') }]);
  const [documentFile] = created(
    await t.api.request('POST', `${summaryUrl}/files`, upload.body, upload.headers),
    'document file',
  );
  const documentTypeRecord = await call(
    'POST',
    `${P}/document-summary/{summaryId}/{docType}`,
    `${summaryUrl}/${documentType}`,
    {},
  );
  await call('PUT', `${P}/document-summary/{summaryId}`, summaryUrl, { type: documentType });

  const assessment = formation.assessments![0]!.name;
  const assessmentRecord = await call('POST', `${P}/assessment-records`, `${patientUrl}/assessment-records`, {
    assessmentName: assessment,
    folderId: marker,
  });

  // Writes that change a fixture or nothing, for the operations no fixture is made by.
  await call('PUT', `${I}/formations/draft`, `${t.base}/formations/draft`, formation);
  bodies[`POST ${A}/api_clients/{clientName}`] = { secret: t.adminClient.secret };
  const phase = formation.programs![0]!.phases![1]!.name;
  await call('PATCH', `${P}/programs/{programName}/phases`, `${patientUrl}/programs/${program}/phases`, { phaseName: phase });
  await call('PATCH', `${I}/patients`, `${t.base}/patients`, { ids: [patient.id], timezone: 'US/Eastern' });
  await call('PATCH', `${I}/tasks`, `${t.base}/tasks`, { taskIds: [task.id], status: 'IN_PROGRESS' });
  await call('PUT', `${A}/users/{userName}/password`, `${t.admin}/users/${username}/password`, {
    password: `a long enough password ${marker}`,
  });

  const dictionaryValues = Object.fromEntries((dictionary.fields ?? []).map((field) => [field.name, `${field.name}-${marker}`]));
  const dictionaryBody = await call('POST', `${I}/dictionaries/{dictionaryName}`, `${t.base}/dictionaries/${dictionary.name}`, {
    records: [{ values: dictionaryValues }],
  });
  bodies[`PUT ${I}/dictionaries/{dictionaryName}/{recordId}`] = { values: dictionaryValues };

  return {
    ids: {
      tenant: t.tenant.id,
      instance: t.instance.id,
      apiClient: t.adminClient.id,
      user: user.id,
      patient: patient.id,
      carePlan: carePlan.id,
      task: task.id,
      taskComment: commented.comments[0].id,
      enrollment: enrollment.id,
      goal: goal.id,
      goalComment: goalComment.id,
      goalTask: goalTask.id,
      pdtRecord: pdtRecord.id,
      contact: contact.id,
      cdtRecord: cdtRecord.id,
      dictionaryRecord: dictionaryBody.records[0].id,
      documentSummary: summary.id,
      documentFile: documentFile.id,
      documentTypeRecord: documentTypeRecord.id,
      assessmentRecord: assessmentRecord.id,
    },
    alternateKeys: [username, email, externalId, mrn, externalGuid],
    username,
    names: { program, goalTemplate, pdt: pdt.name, cdt: cdt.name, dictionary: dictionary.name, documentType, assessment },
    marker,
    bodies,
  };
}

/**
 * Every row a tenant holds: the tenant's own row and, for every table with a `tenant_id`, its
 * rows as JSON text in a fixed order. Two snapshots are equal when nothing of the tenant changed.
 */
export async function tenantSnapshot(app: TestApp, tenantId: string): Promise<Record<string, string[]>> {
  const db = app.services.db;
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'tenant_id'
    ORDER BY table_name`.execute(db);
  const snapshot: Record<string, string[]> = {};
  const own = await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM tenants t WHERE id = ${tenantId}`.execute(db);
  snapshot.tenants = own.rows.map((r) => r.row);
  for (const { table_name } of tables.rows) {
    const rows = await sql<{ row: string }>`
      SELECT row_to_json(t)::text AS row FROM ${sql.table(table_name)} t
      WHERE tenant_id = ${tenantId} ORDER BY 1`.execute(db);
    snapshot[table_name] = rows.rows.map((r) => r.row);
  }
  return snapshot;
}
