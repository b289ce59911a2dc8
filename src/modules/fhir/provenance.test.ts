import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { systemContext } from '../../http/context.ts';
import { assertOutcome, createUser, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import {
  Api,
  auditOf,
  createPatient,
  createTestTenant,
  createUserWithPassword,
  startApp,
  TEST_PASSWORD,
  type TestTenant,
} from '../../test/harness.ts';
import { updateTask } from '../tasks/operations.ts';

/**
 * Provenance from the audit log (docs/fhir.md, "Provenance"): a write's audit row read as US Core
 * 6.1.0 Provenance by its id, and a search's matches' Provenance with `_revinclude=Provenance:target`,
 * each readable only where its target is.
 */

const app = await startApp();

type Json = Record<string, any>;

async function createTask(t: TestTenant, body: Json = {}, api: Api = t.api) {
  const assignee = (await createUser(t)).id;
  const response = await api.post(`${t.base}/tasks`, {
    name: 'Call back',
    status: 'TODO',
    priority: 'LOW',
    assignee: { id: assignee },
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body as Json;
}

/** The audit rows about a record, oldest first: its Provenance's ids. */
async function auditIdsOf(t: TestTenant, entityType: string, entityId: string): Promise<string[]> {
  const rows = (await auditOf(t, { entityType, entityId })) as unknown as { id: string }[];
  return rows.map((row) => row.id).reverse();
}

/** A Provenance read by id, checked against US Core 6.1.0. */
async function readProvenance(t: TestTenant, id: string, api: Api = t.api): Promise<Json> {
  const read = await api.get(`${fhirBase(t)}/Provenance/${id}`);
  assert.equal(read.status, 200, read.text);
  assert.match(String(read.headers['content-type']), /^application\/fhir\+json/);
  assert.deepEqual(usCoreErrors(read.body, 'us-core-provenance'), []);
  return read.body;
}

const included = (bundle: Json, type = 'Provenance') =>
  (bundle.entry ?? []).filter((entry: Json) => entry.search.mode === 'include' && entry.resource.resourceType === type);

describe('FHIR R4: Provenance', () => {
  test("the US Core 6.1.0 checks catch what the profile forbids (the helper's own test)", () => {
    const author = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'author' }] };
    const transmitter = {
      coding: [{ system: 'http://hl7.org/fhir/us/core/CodeSystem/us-core-provenance-participant-type', code: 'transmitter' }],
    };
    const good = {
      resourceType: 'Provenance',
      target: [{ reference: 'Patient/1' }],
      recorded: '2026-01-01T00:00:00.000Z',
      agent: [{ type: author, who: { reference: 'Organization/1' } }],
    };
    assert.deepEqual(usCoreErrors(good, 'us-core-provenance'), []);
    const { target: _target, recorded: _recorded, ...bare } = good;
    assert.equal(usCoreErrors(bare, 'us-core-provenance').filter((error) => /target|recorded/.test(error)).length >= 2, true);
    assert.notDeepEqual(
      usCoreErrors({ ...good, agent: [{ type: author, who: { reference: 'Practitioner/1' } }] }, 'us-core-provenance'),
      [],
    );
    assert.notDeepEqual(usCoreErrors({ ...good, agent: [{ type: transmitter }] }, 'us-core-provenance'), []);
    assert.notDeepEqual(
      usCoreErrors({ ...good, agent: [{ type: author, who: { reference: 'Task/1' } }] }, 'us-core-provenance'),
      [],
    );
    assert.notDeepEqual(usCoreErrors({ ...good, recorded: '2026-01-01' }, 'us-core-provenance'), []);
  });

  test('a write is read as its Provenance: target, recorded, activity, an API client as a Device author and transmitter', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t);
    const task = await createTask(t, { patient: { id: patient.id } });
    assert.equal((await t.api.patch(`${t.base}/tasks/${task.id}`, { status: 'IN_PROGRESS' })).status, 200);
    const [created, updated] = await auditIdsOf(t, 'TASK', task.id);
    assert.ok(created && updated);

    const provenance = await readProvenance(t, created);
    assert.equal(provenance.resourceType, 'Provenance');
    assert.equal(provenance.id, created);
    assert.deepEqual(provenance.target, [{ reference: `Task/${task.id}` }]);
    assert.equal(provenance.recorded, task.createdAt);
    assert.deepEqual(
      provenance.activity.coding.map((coding: Json) => coding.code),
      ['CREATE', 'TASK_CREATED'],
    );
    const device = {
      type: 'Device',
      identifier: { system: 'https://cairn.health/fhir/sid/api-client-id', value: t.adminClient.id },
      display: t.adminClient.name,
    };
    const organization = { reference: `Organization/${t.instance.id}` };
    assert.deepEqual(provenance.agent, [
      {
        type: {
          coding: [
            { system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'author', display: 'Author' },
          ],
        },
        who: device,
        onBehalfOf: organization,
      },
      {
        type: {
          coding: [
            {
              system: 'http://hl7.org/fhir/us/core/CodeSystem/us-core-provenance-participant-type',
              code: 'transmitter',
              display: 'Transmitter',
            },
          ],
        },
        who: device,
        onBehalfOf: organization,
      },
    ]);
    assert.equal((await readProvenance(t, updated)).activity.coding[0].code, 'UPDATE');

    // The access log names the Provenance's patient and the row read.
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const reads = (log.body.data as Json[]).filter((record) => record.operation.includes('/fhir/R4/Provenance'));
    assert.equal(reads.length, 2);
    assert.deepEqual(reads[0]!.patientIds, [patient.id]);
  });

  test('a user is a Practitioner author and Cairn itself the Organization, each on behalf of the instance', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUserWithPassword(t, { role: 'admin' });
    const login = await t.anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: nurse.username,
      password: TEST_PASSWORD,
    });
    assert.equal(login.status, 200, login.text);
    const asNurse = new Api(app.server, login.body.token);
    const task = await createTask(t, {}, asNurse);
    await updateTask(systemContext(app.services, t.tenant, t.instance), task.id as string, { status: 'COMPLETED' });
    const [byNurse, bySystem] = await auditIdsOf(t, 'TASK', task.id);

    const nurses = await readProvenance(t, byNurse!);
    assert.deepEqual(nurses.agent, [
      {
        type: {
          coding: [
            { system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'author', display: 'Author' },
          ],
        },
        who: { reference: `Practitioner/${nurse.id}`, display: 'Joy Nurse' },
        onBehalfOf: { reference: `Organization/${t.instance.id}` },
      },
    ]);
    const systems = await readProvenance(t, bySystem!);
    assert.deepEqual(systems.agent[0].who, { reference: `Organization/${t.instance.id}`, display: 'SYSTEM:cli' });
    assert.equal(systems.agent[0].onBehalfOf, undefined);
  });

  test('_revinclude=Provenance:target on Patient and Task, by GET and POST; the links keep it', async () => {
    const t = await createTestTenant(app);
    const ada = await createPatient(t, { lastName: 'Revinclude' });
    const bo = await createPatient(t, { firstName: 'Bo', lastName: 'Revinclude' });
    assert.equal((await t.api.patch(`${t.base}/patients/${ada.id}`, { middleName: 'Q' })).status, 200);
    const adaRows = await auditIdsOf(t, 'PATIENT', ada.id);
    const boRows = await auditIdsOf(t, 'PATIENT', bo.id);
    assert.equal(adaRows.length, 2);

    const url = `${fhirBase(t)}/Patient?family=revinclude&_revinclude=Provenance:target&_revinclude=Nothing:else`;
    const bundle = (await t.api.get(url)).body;
    assert.deepEqual(
      idsOf({ entry: bundle.entry.filter((entry: Json) => entry.search.mode === 'match') }),
      [ada.id, bo.id].sort(),
    );
    const provenance = included(bundle);
    assert.deepEqual(provenance.map((entry: Json) => entry.resource.id).sort(), [...adaRows, ...boRows].sort());
    for (const entry of provenance) {
      assert.equal(entry.fullUrl, `http://localhost:80${fhirBase(t)}/Provenance/${entry.resource.id}`);
      assert.deepEqual(usCoreErrors(entry.resource, 'us-core-provenance'), []);
    }
    const self = new URL(bundle.link[0].url);
    assert.deepEqual(self.searchParams.getAll('_revinclude'), ['Provenance:target'], 'an unserved value is left out');

    // Paged: each page's Provenance with it, and the next link keeps _revinclude.
    const first = (await t.api.get(`${fhirBase(t)}/Patient?family=revinclude&_count=1&_revinclude=Provenance:target`)).body;
    const next = new URL(first.link.find((link: Json) => link.relation === 'next').url);
    assert.equal(next.searchParams.get('_revinclude'), 'Provenance:target');
    const [firstMatch] = first.entry.filter((entry: Json) => entry.search.mode === 'match');
    const firstRows = firstMatch.resource.id === ada.id ? adaRows : boRows;
    assert.deepEqual(
      included(first).map((entry: Json) => entry.resource.id),
      firstRows,
      'oldest first',
    );

    const posted = await app.server.inject({
      method: 'POST',
      url: `${fhirBase(t)}/Patient/_search`,
      headers: { authorization: `Bearer ${t.api.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'family=revinclude&_revinclude=Provenance%3Atarget',
    });
    assert.equal(posted.statusCode, 200, posted.body);
    const postedBundle = JSON.parse(posted.body);
    assert.deepEqual(
      included(postedBundle)
        .map((entry: Json) => entry.resource.id)
        .sort(),
      [...adaRows, ...boRows].sort(),
    );

    const task = await createTask(t, { patient: { id: ada.id } });
    const taskRows = await auditIdsOf(t, 'TASK', task.id);
    const tasks = (await t.api.get(`${fhirBase(t)}/Task?patient=${ada.id}&_revinclude=Provenance:target`)).body;
    assert.deepEqual(
      included(tasks).map((entry: Json) => entry.resource.target[0].reference),
      taskRows.map(() => `Task/${task.id}`),
    );
    // Without _revinclude, none.
    assert.deepEqual(included((await t.api.get(`${fhirBase(t)}/Task?patient=${ada.id}`)).body), []);

    // The CapabilityStatement lists Provenance (read) and the revinclude on US Core types.
    const metadata = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
    const resources = metadata.rest[0].resource as Json[];
    assert.deepEqual(
      resources.find((resource) => resource.type === 'Provenance'),
      {
        type: 'Provenance',
        supportedProfile: ['http://hl7.org/fhir/us/core/StructureDefinition/us-core-provenance|6.1.0'],
        interaction: [{ code: 'read' }],
      },
    );
    assert.deepEqual(resources.find((resource) => resource.type === 'Patient')!.searchRevInclude, ['Provenance:target']);
  });

  test("readable only where the target is: the target's permission, a token's scopes; 401; 403; 404", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t);
    const task = await createTask(t, { patient: { id: patient.id } });
    const [patientRow] = await auditIdsOf(t, 'PATIENT', patient.id);
    const [taskRow] = await auditIdsOf(t, 'TASK', task.id);

    assertOutcome(await t.anonymous.get(`${fhirBase(t)}/Provenance/${taskRow}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const tasksOnly = await t.apiWith(['TASK_READ']);
    await readProvenance(t, taskRow!, tasksOnly);
    assertOutcome(await tasksOnly.get(`${fhirBase(t)}/Provenance/${patientRow}`), 404, 'PROVENANCE_NOT_FOUND');
    const patientsOnly = await t.apiWith(['PATIENT_READ']);
    await readProvenance(t, patientRow!, patientsOnly);
    assertOutcome(await patientsOnly.get(`${fhirBase(t)}/Provenance/${taskRow}`), 404, 'PROVENANCE_NOT_FOUND');
    const auditor = await t.apiWith(['AUDIT_READ']);
    assertOutcome(await auditor.get(`${fhirBase(t)}/Provenance/${taskRow}`), 403, 'ACCESS_DENIED');

    // A SMART token reads Provenance with Provenance.r and its target's scope.
    const scoped = async (scopes: string[]) =>
      new Api(
        app.server,
        (
          await app.services.tokens.issue({
            type: 'API_CLIENT',
            id: t.adminClient.id,
            tenantId: t.tenant.id,
            name: `API_CLIENT:${t.adminClient.name}`,
            scopes,
          })
        ).token,
      );
    const withProvenance = await scoped(['system/Provenance.r', 'system/Task.rs', 'system/Patient.s']);
    await readProvenance(t, taskRow!, withProvenance);
    assertOutcome(await withProvenance.get(`${fhirBase(t)}/Provenance/${patientRow}`), 404, 'PROVENANCE_NOT_FOUND');
    const withoutProvenance = await scoped(['system/Task.rs', 'system/Patient.rs']);
    assertOutcome(await withoutProvenance.get(`${fhirBase(t)}/Provenance/${taskRow}`), 403, 'ACCESS_DENIED');
    const page = (await withoutProvenance.get(`${fhirBase(t)}/Task?_revinclude=Provenance:target`)).body;
    assert.equal(page.entry.length, 1, 'the match, no Provenance');
    const withBoth = (await withProvenance.get(`${fhirBase(t)}/Task?_revinclude=Provenance:target`)).body;
    assert.equal(included(withBoth).length, 1);
  });

  test("missing, malformed, another tenant's, a record not served as FHIR: 404; bad values 400; not served 405", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const theirs = await createPatient(other);
    const [theirRow] = await auditIdsOf(other, 'PATIENT', theirs.id);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Provenance/${theirRow}`), 404, 'PROVENANCE_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Provenance/${randomUUID()}`), 404, 'PROVENANCE_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Provenance/not-a-uuid`), 404, 'PROVENANCE_NOT_FOUND');
    // Their search never includes another tenant's rows.
    const mine = await createPatient(t, { lastName: 'Isolated' });
    const bundle = (await t.api.get(`${fhirBase(t)}/Patient?_revinclude=Provenance:target`)).body;
    assert.deepEqual(
      [...new Set(included(bundle).map((entry: Json) => entry.resource.target[0].reference))],
      [`Patient/${mine.id}`],
    );

    // An API client's creation is audited, but an API client is no FHIR resource.
    const client = await t.api.post(`${t.admin}/api-clients`, { name: `c-${randomUUID().slice(0, 8)}`, roles: [] });
    assert.equal(client.status, 201, client.text);
    const [clientRow] = await auditIdsOf(t, 'API_CLIENT', client.body.id);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Provenance/${clientRow}`), 404, 'PROVENANCE_NOT_FOUND');
    // A record deleted since: its Provenance goes with it.
    const gone = await createPatient(t);
    const [goneRow] = await auditIdsOf(t, 'PATIENT', gone.id);
    assert.equal((await t.api.delete(`${t.base}/patients/${gone.id}`)).status, 200);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Provenance/${goneRow}`), 404, 'PROVENANCE_NOT_FOUND');

    const bad = await t.api.get(`${fhirBase(t)}/Patient?_revinclude=Provenance:target&_count=x`);
    assertOutcome(bad, 400, 'VALIDATION_ERROR');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Provenance`), 405, 'FHIR_INTERACTION_NOT_SUPPORTED');
    assertOutcome(await t.api.post(`${fhirBase(t)}/Provenance/${randomUUID()}`, {}), 405, 'FHIR_INTERACTION_NOT_SUPPORTED');
  });
});
