import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { allPermissions } from '../../formation/permissions.ts';
import type { Formation } from '../../formation/schemas.ts';
import { permissionsFromGrants } from '../../tenancy/access.ts';
import { Api, createTestTenant, errorCode, type Response, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

const app = await startApp();
const anonymous = new Api(app.server, undefined);

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const versionKeys = ['createdAt', 'publishedAt', 'publishedByName', 'status', 'updatedAt', 'version'];
const phoneA = { id: '6f1c1a52-2d7e-4b8e-9a51-0c4f7c1f0a01', number: '+14155550100', default: true, label: 'Main line' };
const phoneB = { id: '6f1c1a52-2d7e-4b8e-9a51-0c4f7c1f0a02', number: '+14155550101' };

/** Sets the draft and publishes it; answers the publish response. */
async function publishFormation(t: TestTenant, formation: Formation, api: Api = t.api): Promise<Response<any>> {
  const put = await api.put(`${t.base}/formations/draft`, formation);
  assert.equal(put.status, 200, put.text);
  return api.post(`${t.base}/formations/draft/publish`);
}

async function currentFormation(t: TestTenant): Promise<{ version: number; formation: Formation }> {
  const response = await t.api.get(`${t.base}/formations/current`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

/** Every formation route, with a body for the writes. */
function routes(base: string): { method: 'GET' | 'PUT' | 'POST'; url: string; body?: unknown; write: boolean }[] {
  return [
    { method: 'GET', url: `${base}/formations/current`, write: false },
    { method: 'GET', url: `${base}/formations/current/roles`, write: false },
    { method: 'GET', url: `${base}/formations/current/roles/admin`, write: false },
    { method: 'GET', url: `${base}/export/formation_version`, write: false },
    { method: 'GET', url: `${base}/export/formations/current/assessments`, write: false },
    { method: 'PUT', url: `${base}/formations/draft`, body: testFormation(), write: true },
    { method: 'POST', url: `${base}/formations/draft/publish`, body: {}, write: true },
  ];
}

function assertFormationInvalid(response: Response<any>, paths: string[]) {
  assert.equal(response.status, 400, response.text);
  assert.equal(errorCode(response), 'FORMATION_INVALID');
  assert.equal(response.body[0].componentType, 'FORMATION');
  const reported = (response.body[0].details.errors as { path: string; message: string }[]).map((error) => error.path);
  for (const error of response.body[0].details.errors) assert.equal(typeof error.message, 'string');
  for (const path of paths) assert.ok(reported.includes(path), `expected ${path} among ${JSON.stringify(reported)}`);
}

describe('GET /formations/{version}', () => {
  test('reads the current version by number, as current, and the draft as draft or -1', async () => {
    const t = await createTestTenant(app);
    const current = await t.api.get(`${t.base}/formations/current`);
    assert.equal(current.status, 200);
    assert.deepEqual(Object.keys(current.body).sort(), [...versionKeys, 'formation'].sort());
    assert.equal(current.body.version, 1);
    assert.equal(current.body.status, 'CURRENT');
    assert.deepEqual(current.body.formation, testFormation());
    assert.match(current.body.createdAt, timestamp);
    assert.match(current.body.updatedAt, timestamp);
    assert.match(current.body.publishedAt, timestamp);
    assert.equal(current.body.publishedByName, 'SYSTEM:cli');
    assert.equal(current.headers['cache-control'], 'no-store');

    const byNumber = await t.api.get(`${t.base}/formations/1`);
    assert.equal(byNumber.status, 200);
    assert.deepEqual(byNumber.body, current.body);

    const draft = await t.api.get(`${t.base}/formations/draft`);
    assert.equal(draft.status, 200);
    assert.equal(draft.body.version, -1);
    assert.equal(draft.body.status, 'DRAFT');
    assert.equal(draft.body.publishedAt, null);
    assert.equal(draft.body.publishedByName, null);
    assert.deepEqual(draft.body.formation, testFormation());
    const minusOne = await t.api.get(`${t.base}/formations/-1`);
    assert.equal(minusOne.status, 200);
    assert.deepEqual(minusOne.body, draft.body);
    // Unknown query parameters are ignored (DECISIONS §10).
    assert.equal((await t.api.get(`${t.base}/formations/current?page=0&foo=bar`)).status, 200);
  });

  test('a version that is not a number, current, draft or -1 is 400', async () => {
    const t = await createTestTenant(app);
    for (const version of ['abc', '0', '-2', '1.5', '1e3', 'latest', '99999999999']) {
      const response = await t.api.get(`${t.base}/formations/${version}`);
      assert.equal(response.status, 400, version);
      assert.equal(errorCode(response), 'VALIDATION_ERROR', version);
      assert.equal(response.body[0].details.errors[0].path, 'params.version', version);
    }
  });

  test('an unpublished version number is 404 FORMATION_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    for (const version of ['2', '99', '999999999']) {
      const response = await t.api.get(`${t.base}/formations/${version}`);
      assert.equal(response.status, 404, version);
      assert.equal(errorCode(response), 'FORMATION_NOT_FOUND');
      assert.equal(response.body[0].componentType, 'FORMATION');
      assert.equal(response.body[0].details.version, version);
    }
  });

  test('a missing draft is 404 FORMATION_NOT_FOUND, for reading and for publishing', async () => {
    const t = await createTestTenant(app);
    // No route removes a draft; an instance whose formation was loaded without one looks like this.
    await app.services.db
      .deleteFrom('formations')
      .where('tenant_id', '=', t.tenant.id)
      .where('instance_id', '=', t.instance.id)
      .where('version', '=', -1)
      .execute();
    for (const version of ['draft', '-1']) {
      const response = await t.api.get(`${t.base}/formations/${version}`);
      assert.equal(response.status, 404);
      assert.equal(errorCode(response), 'FORMATION_NOT_FOUND');
    }
    assert.equal(errorCode(await t.api.get(`${t.base}/formations/draft/roles`)), 'FORMATION_NOT_FOUND');
    assert.equal(errorCode(await t.api.get(`${t.base}/formations/draft/roles/admin`)), 'FORMATION_NOT_FOUND');
    const publish = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(publish.status, 404);
    assert.equal(errorCode(publish), 'FORMATION_NOT_FOUND');
    assert.equal((await currentFormation(t)).version, 1);
    // A new draft can be set, and published.
    assert.equal((await t.api.put(`${t.base}/formations/draft`, testFormation())).status, 200);
    const published = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(published.status, 200);
    assert.equal(published.body.version, 2);
  });
});

describe('GET /formations/{version}/{section}', () => {
  test('answers each section as a bare array', async () => {
    const t = await createTestTenant(app);
    const formation = testFormation({
      patientAttributes: [
        { name: 'insuranceProvider', title: 'Insurance', type: 'text' },
        { name: 'birthDate', required: true },
      ],
      instancePhones: [phoneA, phoneB],
    });
    assert.equal((await publishFormation(t, formation)).status, 200);
    const sections: [string, unknown[] | undefined][] = [
      ['territories', formation.territories],
      ['security-policies', formation.securityPolicies],
      ['roles', formation.roles],
      ['patient-attributes', formation.patientAttributes],
      ['instance-phones', formation.instancePhones],
    ];
    for (const [name, expected] of sections) {
      for (const version of ['current', '2', 'draft', '-1']) {
        const response = await t.api.get(`${t.base}/formations/${version}/${name}`);
        assert.equal(response.status, 200, `${version}/${name}`);
        assert.ok(Array.isArray(response.body), name);
        assert.deepEqual(response.body, expected, `${version}/${name}`);
      }
    }
    // Version 1 had no phones: an empty section is an empty array.
    const old = await t.api.get(`${t.base}/formations/1/instance-phones`);
    assert.equal(old.status, 200);
    assert.deepEqual(old.body, []);
  });

  test('a section left out of the formation reads as an empty array', async () => {
    const t = await createTestTenant(app);
    const { territories: _territories, ...withoutTerritories } = testFormation();
    assert.equal((await t.api.put(`${t.base}/formations/draft`, withoutTerritories)).status, 200);
    const response = await t.api.get(`${t.base}/formations/draft/territories`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, []);
  });

  test('the draft and the current version are read separately', async () => {
    const t = await createTestTenant(app);
    const draft = testFormation({ territories: [{ name: 'north', title: 'North', territories: ['alaska'] }] });
    assert.equal((await t.api.put(`${t.base}/formations/draft`, draft)).status, 200);
    const fromDraft = await t.api.get(`${t.base}/formations/draft/territories`);
    assert.deepEqual(
      fromDraft.body.map((item: { name: string }) => item.name),
      ['north'],
    );
    const fromCurrent = await t.api.get(`${t.base}/formations/current/territories`);
    assert.deepEqual(
      fromCurrent.body.map((item: { name: string }) => item.name),
      ['west', 'east'],
    );
  });

  test('an unknown section is 404 FORMATION_SECTION_NOT_FOUND listing the sections', async () => {
    const t = await createTestTenant(app);
    for (const section of ['widgets', 'securityPolicies', 'Roles', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const response = await t.api.get(`${t.base}/formations/current/${section}`);
      assert.equal(response.status, 404, section);
      assert.equal(errorCode(response), 'FORMATION_SECTION_NOT_FOUND', section);
      assert.equal(response.body[0].details.section, section);
      assert.deepEqual([...response.body[0].details.sections].sort(), [
        'assessments',
        'cdts',
        'dictionaries',
        'document-types',
        'encounter-disposition',
        'encounters',
        'goal-templates',
        'instance-phones',
        'patient-attributes',
        'pdts',
        'programs',
        'roles',
        'security-policies',
        'territories',
        'visit-services',
        'webhooks',
      ]);
    }
  });

  test('a bad version is 400 and an unpublished one is 404', async () => {
    const t = await createTestTenant(app);
    for (const version of ['abc', '0', '-5']) {
      const response = await t.api.get(`${t.base}/formations/${version}/roles`);
      assert.equal(response.status, 400, version);
      assert.equal(errorCode(response), 'VALIDATION_ERROR');
    }
    const missing = await t.api.get(`${t.base}/formations/7/roles`);
    assert.equal(missing.status, 404);
    assert.equal(errorCode(missing), 'FORMATION_NOT_FOUND');
  });
});

describe('the sections later areas read (DECISIONS §6)', () => {
  const assessment = {
    name: 'phq-9',
    title: 'PHQ-9',
    questions: [{ id: 'q1', text: 'Little interest or pleasure in doing things?', answers: [0, 1, 2, 3] }],
    scoring: { type: 'SUM', bands: [{ from: 0, to: 4, label: 'minimal' }] },
    version: '2024-01',
  };
  const sections = {
    assessments: [assessment],
    documentTypes: [
      { name: 'doc-type-esign', title: 'Signed consent', fields: [{ name: 'signedOn', type: 'date' as const }] },
      { name: 'lab-report', title: 'Lab report', fields: [{ name: 'lab', type: 'text' as const, required: true }] },
    ],
    visitServices: [{ name: 'initial-visit', serviceCost: 120, cancellationFee: 25, preVisitCost: 0, modifiers: ['95'] }],
    encounterTemplates: [{ name: 'intake', title: 'Intake', assessmentNames: ['phq-9'], visitServices: ['initial-visit'] }],
    encounterDisposition: { fields: [{ name: 'outcome', type: 'select' as const, options: ['RESOLVED', 'FOLLOW_UP'] }] },
    messageTemplates: [{ name: 'welcome', body: 'Welcome to the program' }],
    webhooks: [{ name: 'patients', url: 'https://example.org/hook', eventSubtypes: ['PATIENT_CREATED'] }],
  };

  test('are kept as written, published, and read by their production paths', async () => {
    const t = await createTestTenant(app);
    const formation = testFormation(sections);
    const published = await publishFormation(t, formation);
    assert.equal(published.status, 200, published.text);
    assert.deepEqual(published.body.formation, formation, 'assessments keep their own keys');
    const read = async (path: string) => {
      const response = await t.api.get(`${t.base}/formations/current/${path}`);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      return response.body;
    };
    assert.deepEqual(await read('assessments'), [assessment]);
    assert.deepEqual(await read('assessments/phq-9'), assessment);
    assert.deepEqual(await read('encounters'), sections.encounterTemplates);
    assert.deepEqual(await read('visit-services/initial-visit'), sections.visitServices[0]);
    assert.deepEqual(
      await read('encounter-disposition'),
      { name: '__encounter_disposition__', ...sections.encounterDisposition },
      'one object, not a list, named as DECISIONS §7 says',
    );
    assert.deepEqual(await read('encounter-disposition/outcome'), sections.encounterDisposition.fields[0]);
    // The defaults always exist; a formation may give one of them fields.
    assert.deepEqual(await read('document-types'), [
      { name: 'doc-type-assessment', title: 'Assessment', fields: [] },
      { name: 'doc-type-others', title: 'Others', fields: [] },
      ...sections.documentTypes,
    ]);
  });

  test('an instance whose formation has none still has the default document types and an empty disposition', async () => {
    const t = await createTestTenant(app);
    const types = (await t.api.get(`${t.base}/formations/current/document-types`)).body as { name: string }[];
    assert.deepEqual(
      types.map((type) => type.name),
      ['doc-type-assessment', 'doc-type-esign', 'doc-type-others'],
    );
    assert.deepEqual((await t.api.get(`${t.base}/formations/current/encounter-disposition`)).body, {
      name: '__encounter_disposition__',
      fields: [],
    });
    assert.deepEqual((await t.api.get(`${t.base}/formations/current/assessments`)).body, []);
  });

  test('publish checks names and the references of encounter templates', async () => {
    const t = await createTestTenant(app);
    const response = await publishFormation(
      t,
      testFormation({
        ...sections,
        assessments: [assessment, assessment],
        encounterTemplates: [{ name: 'intake', assessmentNames: ['gad-7'], visitServices: ['house-call'] }],
        encounterDisposition: { fields: [{ name: 'id', type: 'text' }] },
        // The system's record types are not the formation's to define.
        cdts: [{ name: '__encounter__', fields: [{ name: 'status', type: 'text' }] }],
      }),
    );
    assertFormationInvalid(response, [
      'cdts.0.name',
      'assessments.1.name',
      'encounterTemplates.0.assessmentNames',
      'encounterTemplates.0.visitServices',
      'encounterDisposition.fields.0.name',
    ]);
  });
});

describe('GET /export/formations/{version}/assessments', () => {
  async function download(t: TestTenant, version: string) {
    return app.server.inject({
      method: 'GET',
      url: `${t.base}/export/formations/${version}/assessments`,
      headers: { authorization: `Bearer ${t.adminClient.token}` },
    });
  }

  test("answers a ZIP holding the version's assessments as JSON", async () => {
    const t = await createTestTenant(app);
    const assessments = [{ name: 'gad-7', title: 'GAD-7', questions: [{ id: 'q1' }] }];
    assert.equal((await publishFormation(t, testFormation({ assessments }))).status, 200);
    const response = await download(t, 'current');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/zip');
    assert.equal(response.headers['content-disposition'], 'attachment; filename="formation-2-assessments.zip"');
    const files = unzipSync(new Uint8Array(response.rawPayload));
    assert.deepEqual(Object.keys(files), ['assessments.json']);
    assert.deepEqual(JSON.parse(strFromU8(files['assessments.json']!)), assessments);
    // Version 1 had none; the draft is readable too.
    assert.deepEqual(
      JSON.parse(strFromU8(unzipSync(new Uint8Array((await download(t, '1')).rawPayload))['assessments.json']!)),
      [],
    );
    assert.equal((await download(t, 'draft')).statusCode, 200);
  });

  test('a bad version is 400 and an unpublished one 404', async () => {
    const t = await createTestTenant(app);
    assert.equal((await download(t, 'latest')).statusCode, 400);
    const missing = await download(t, '9');
    assert.equal(missing.statusCode, 404);
    assert.equal(JSON.parse(missing.body)[0].errorCode, 'FORMATION_NOT_FOUND');
  });
});

describe('GET /formations/{version}/{section}/{itemName}', () => {
  test('answers one item as a bare object; phones are named by id', async () => {
    const t = await createTestTenant(app);
    const formation = testFormation({
      patientAttributes: [{ name: 'riskLevel', type: 'select', options: ['LOW', 'HIGH'] }],
      instancePhones: [phoneA, phoneB],
    });
    assert.equal((await publishFormation(t, formation)).status, 200);
    const items: [string, string, unknown][] = [
      ['territories', 'east', formation.territories?.[1]],
      ['security-policies', 'patient-reading', formation.securityPolicies?.[1]],
      ['roles', 'patient-reader', formation.roles?.[1]],
      ['patient-attributes', 'riskLevel', formation.patientAttributes?.[0]],
      ['instance-phones', phoneB.id, phoneB],
      ['instance-phones', phoneA.id, phoneA],
    ];
    for (const [section, name, expected] of items) {
      for (const version of ['current', '2', 'draft']) {
        const response = await t.api.get(`${t.base}/formations/${version}/${section}/${name}`);
        assert.equal(response.status, 200, `${version}/${section}/${name}: ${response.text}`);
        assert.ok(response.body && typeof response.body === 'object' && !Array.isArray(response.body));
        assert.deepEqual(response.body, expected);
      }
    }
    // An item only in the newer version is not in the older one.
    const old = await t.api.get(`${t.base}/formations/1/instance-phones/${phoneA.id}`);
    assert.equal(old.status, 404);
    assert.equal(errorCode(old), 'FORMATION_ITEM_NOT_FOUND');
  });

  test('a missing item is 404 FORMATION_ITEM_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    for (const [section, name] of [
      ['roles', 'no-such-role'],
      ['territories', 'california'],
      ['security-policies', 'admin'],
      ['instance-phones', '+14155550100'],
      ['patient-attributes', 'content'],
    ]) {
      const response = await t.api.get(`${t.base}/formations/current/${section}/${name}`);
      assert.equal(response.status, 404, `${section}/${name}`);
      assert.equal(errorCode(response), 'FORMATION_ITEM_NOT_FOUND');
      assert.deepEqual(response.body[0].details, { section, name });
    }
  });

  test('an unknown section is 404 FORMATION_SECTION_NOT_FOUND, a bad version 400, an unpublished one 404', async () => {
    const t = await createTestTenant(app);
    for (const section of ['widgets', 'constructor', '__proto__']) {
      const response = await t.api.get(`${t.base}/formations/current/${section}/admin`);
      assert.equal(response.status, 404, section);
      assert.equal(errorCode(response), 'FORMATION_SECTION_NOT_FOUND', section);
    }
    const bad = await t.api.get(`${t.base}/formations/abc/roles/admin`);
    assert.equal(bad.status, 400);
    assert.equal(errorCode(bad), 'VALIDATION_ERROR');
    const zero = await t.api.get(`${t.base}/formations/0/roles/admin`);
    assert.equal(zero.status, 400);
    const unpublished = await t.api.get(`${t.base}/formations/3/roles/admin`);
    assert.equal(unpublished.status, 404);
    assert.equal(errorCode(unpublished), 'FORMATION_NOT_FOUND');
  });
});

describe('PUT /formations/draft', () => {
  test('replaces the whole draft and leaves the current version alone', async () => {
    const t = await createTestTenant(app);
    const draft = testFormation({ territories: [{ name: 'north', title: 'North', territories: ['alaska'] }] });
    const response = await t.api.put(`${t.base}/formations/draft`, draft);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body).sort(), [...versionKeys, 'formation'].sort());
    assert.equal(response.body.version, -1);
    assert.equal(response.body.status, 'DRAFT');
    assert.equal(response.body.publishedAt, null);
    assert.deepEqual(response.body.formation, draft);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft`)).body.formation, draft);
    const current = await currentFormation(t);
    assert.equal(current.version, 1);
    assert.deepEqual(current.formation, testFormation());

    // The whole draft is replaced, not merged: sections left out are gone.
    const smaller = await t.api.put(`${t.base}/formations/draft`, { roles: [{ name: 'solo', policies: [] }] });
    assert.equal(smaller.status, 200);
    assert.deepEqual(smaller.body.formation, { roles: [{ name: 'solo', policies: [] }] });
    const stored = await t.api.get(`${t.base}/formations/draft`);
    assert.deepEqual(stored.body.formation, { roles: [{ name: 'solo', policies: [] }] });
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft/territories`)).body, []);
    // An empty formation is a valid draft.
    assert.equal((await t.api.put(`${t.base}/formations/draft`, {})).status, 200);
  });

  test('unknown keys, at the top or inside items, are ignored: no read shows them (DECISIONS §10)', async () => {
    const t = await createTestTenant(app);
    const response = await t.api.put(`${t.base}/formations/draft`, {
      widgets: [{ name: 'w' }],
      roles: [{ name: 'r', policies: [], colour: 'blue', id: 'abc' }],
      instancePhones: [{ ...phoneA, extension: '12' }],
    });
    assert.equal(response.status, 200, response.text);
    const expected = { roles: [{ name: 'r', policies: [] }], instancePhones: [phoneA] };
    assert.deepEqual(response.body.formation, expected);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft`)).body.formation, expected);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft/roles`)).body, expected.roles);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft/roles/r`)).body, expected.roles[0]);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft/instance-phones/${phoneA.id}`)).body, phoneA);
  });

  test("a phone's capabilities (SMS, VOICE_CALL, FAX) are kept as given; a phone without them sends on every channel", async () => {
    const t = await createTestTenant(app);
    const faxLine = { ...phoneB, capabilities: ['FAX', 'VOICE_CALL'] };
    const draft = await t.api.put(`${t.base}/formations/draft`, testFormation({ instancePhones: [phoneA, faxLine] } as never));
    assert.equal(draft.status, 200, draft.text);
    assert.equal((await t.api.post(`${t.base}/formations/draft/publish`)).status, 200);
    assert.deepEqual((await t.api.get(`${t.base}/formations/current/instance-phones/${phoneB.id}`)).body, faxLine);
    assert.deepEqual((await t.api.get(`${t.base}/formations/current/instance-phones/${phoneA.id}`)).body, phoneA);
  });

  test('is not checked for references until publish', async () => {
    const t = await createTestTenant(app);
    const draft = testFormation({ roles: [{ name: 'broken', policies: ['no-such-policy'] }] });
    const response = await t.api.put(`${t.base}/formations/draft`, draft);
    assert.equal(response.status, 200);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft/roles/broken`)).body, {
      name: 'broken',
      policies: ['no-such-policy'],
    });
  });

  test('a malformed draft is 400 VALIDATION_ERROR and the draft is unchanged', async () => {
    const t = await createTestTenant(app);
    const bad: [string, unknown][] = [
      ['section not a list', { territories: 'west' }],
      ['name not a string', { securityPolicies: [{ name: 5, permissions: [] }] }],
      ['empty name', { roles: [{ name: '', policies: [] }] }],
      ['policies not a list', { roles: [{ name: 'r', policies: 'everything' }] }],
      ['missing policies', { roles: [{ name: 'r' }] }],
      ['permissions not strings', { securityPolicies: [{ name: 'p', permissions: [1, 2] }] }],
      ['missing territories', { territories: [{ name: 'west' }] }],
      ['unknown attribute type', { patientAttributes: [{ name: 'x', type: 'banana' }] }],
      ['required not boolean', { patientAttributes: [{ name: 'x', type: 'text', required: 'yes' }] }],
      ['phone id not a uuid', { instancePhones: [{ id: 'phone-1', number: '+14155550100' }] }],
      ['phone not E.164', { instancePhones: [{ id: phoneA.id, number: '4155550100' }] }],
      ['phone with a national zero', { instancePhones: [{ id: phoneA.id, number: '+4402079460000' }] }],
      ['default not boolean', { instancePhones: [{ id: phoneA.id, number: '+14155550100', default: 'true' }] }],
      ['unknown capability', { instancePhones: [{ id: phoneA.id, number: '+14155550100', capabilities: ['TELEX'] }] }],
      ['capabilities not a list', { instancePhones: [{ id: phoneA.id, number: '+14155550100', capabilities: 'FAX' }] }],
      ['body is a list', [testFormation()]],
      ['body is a string', '"formation"'],
      ['body is null', 'null'],
    ];
    for (const [label, body] of bad) {
      const response =
        typeof body === 'string'
          ? await t.api.request('PUT', `${t.base}/formations/draft`, body, { 'content-type': 'application/json' })
          : await t.api.put(`${t.base}/formations/draft`, body);
      assert.equal(response.status, 400, `${label}: ${response.text}`);
      assert.equal(errorCode(response), 'VALIDATION_ERROR', label);
      assert.ok(response.body[0].details.errors.length > 0, label);
      assert.ok(
        response.body[0].details.errors.every((error: { path: string }) => error.path.startsWith('body')),
        `${label}: ${response.text}`,
      );
    }
    const notJson = await t.api.request('PUT', `${t.base}/formations/draft`, '{"roles": [', {
      'content-type': 'application/json',
    });
    assert.equal(notJson.status, 400);
    assert.equal(errorCode(notJson), 'MALFORMED_JSON');
    const draft = await t.api.get(`${t.base}/formations/draft`);
    assert.deepEqual(draft.body.formation, testFormation());
  });
});

describe('POST /formations/draft/publish', () => {
  test('publishes the draft as version n+1, which becomes current', async () => {
    const t = await createTestTenant(app);
    const draft = testFormation({ territories: [{ name: 'north', title: 'North', territories: ['alaska'] }] });
    await t.api.put(`${t.base}/formations/draft`, draft);
    const response = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), [...versionKeys, 'formation'].sort());
    assert.equal(response.body.version, 2);
    assert.equal(response.body.status, 'CURRENT');
    assert.deepEqual(response.body.formation, draft);
    assert.match(response.body.publishedAt, timestamp);
    assert.equal(response.body.publishedByName, `API_CLIENT:${t.adminClient.name}`);

    const current = await t.api.get(`${t.base}/formations/current`);
    assert.equal(current.body.version, 2);
    assert.equal(current.body.status, 'CURRENT');
    assert.deepEqual(current.body.formation, draft);
    const first = await t.api.get(`${t.base}/formations/1`);
    assert.equal(first.body.status, 'PUBLISHED');
    assert.deepEqual(first.body.formation, testFormation());
    // The draft stays, holding what was published.
    const stillDraft = await t.api.get(`${t.base}/formations/draft`);
    assert.equal(stillDraft.body.status, 'DRAFT');
    assert.deepEqual(stillDraft.body.formation, draft);
  });

  test('a published version is immutable: editing the draft afterwards does not change it', async () => {
    const t = await createTestTenant(app);
    const second = testFormation({ territories: [{ name: 'north', title: 'North', territories: ['alaska'] }] });
    assert.equal((await publishFormation(t, second)).body.version, 2);
    const edited = testFormation({ territories: [{ name: 'south', title: 'South', territories: ['texas'] }] });
    assert.equal((await t.api.put(`${t.base}/formations/draft`, edited)).status, 200);

    const two = await t.api.get(`${t.base}/formations/2`);
    assert.deepEqual(two.body.formation, second);
    assert.deepEqual((await t.api.get(`${t.base}/formations/current/territories/north`)).body, second.territories?.[0]);
    assert.equal(errorCode(await t.api.get(`${t.base}/formations/current/territories/south`)), 'FORMATION_ITEM_NOT_FOUND');
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft/territories/south`)).body, edited.territories?.[0]);

    // Publishing again makes 3 current; 2 keeps its content and becomes PUBLISHED.
    const third = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(third.body.version, 3);
    const current = await currentFormation(t);
    assert.equal(current.version, 3);
    assert.deepEqual(current.formation, edited);
    const old = await t.api.get(`${t.base}/formations/2`);
    assert.equal(old.body.status, 'PUBLISHED');
    assert.deepEqual(old.body.formation, second);
    assert.equal(old.body.publishedAt, two.body.publishedAt);
  });

  test('publishing an unchanged draft still makes a new version', async () => {
    const t = await createTestTenant(app);
    const again = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(again.status, 200);
    assert.equal(again.body.version, 2);
    assert.deepEqual(again.body.formation, testFormation());
  });

  test('two publishes at once take different numbers', async () => {
    const t = await createTestTenant(app);
    const [a, b] = await Promise.all([
      t.api.post(`${t.base}/formations/draft/publish`),
      t.api.post(`${t.base}/formations/draft/publish`),
    ]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual([a.body.version, b.body.version].sort(), [2, 3]);
    assert.equal((await currentFormation(t)).version, 3);
  });

  test('ignores a body', async () => {
    const t = await createTestTenant(app);
    const response = await t.api.post(`${t.base}/formations/draft/publish`, { version: 9, formation: {} });
    assert.equal(response.status, 200);
    assert.equal(response.body.version, 2);
    assert.deepEqual(response.body.formation, testFormation());
  });

  const invalid: [string, Formation, string[]][] = [
    [
      'duplicate territory names',
      testFormation({
        territories: [
          { name: 'west', territories: ['a'] },
          { name: 'west', territories: ['b'] },
        ],
      }),
      ['territories.1.name'],
    ],
    [
      'a territory listed twice in a region',
      testFormation({ territories: [{ name: 'west', territories: ['a', 'a'] }] }),
      ['territories.0.territories'],
    ],
    [
      'duplicate policy names',
      testFormation({ securityPolicies: [{ name: 'everything', permissions: [] }] }),
      ['securityPolicies.2.name'],
    ],
    ['duplicate role names', testFormation({ roles: [{ name: 'admin', policies: [] }] }), ['roles.3.name']],
    [
      'duplicate patient attribute names',
      testFormation({
        patientAttributes: [
          { name: 'insurer', type: 'text' },
          { name: 'insurer', type: 'integer' },
        ],
      }),
      ['patientAttributes.1.name'],
    ],
    [
      'duplicate phone ids',
      testFormation({ instancePhones: [phoneB, { ...phoneB, number: '+14155550102' }] }),
      ['instancePhones.1.id'],
    ],
    [
      'a role naming a missing policy',
      testFormation({ roles: [{ name: 'broken', policies: ['everything', 'no-such-policy'] }] }),
      ['roles.3.policies'],
    ],
    [
      'an unknown permission',
      testFormation({ securityPolicies: [{ name: 'odd', permissions: ['PATIENT_READ', 'FLY_TO_THE_MOON'] }] }),
      ['securityPolicies.2.permissions'],
    ],
    [
      'a permission in the wrong case',
      testFormation({ securityPolicies: [{ name: 'odd', permissions: ['patient_read'] }] }),
      ['securityPolicies.2.permissions'],
    ],
    [
      'an attribute named content',
      testFormation({ patientAttributes: [{ name: 'content', type: 'text' }] }),
      ['patientAttributes.0.name'],
    ],
    [
      'an attribute named data',
      testFormation({ patientAttributes: [{ name: 'data', type: 'object' }] }),
      ['patientAttributes.0.name'],
    ],
    [
      'an attribute named rows',
      testFormation({ patientAttributes: [{ name: 'rows', type: 'integer' }] }),
      ['patientAttributes.0.name'],
    ],
    [
      'a select attribute without options',
      testFormation({ patientAttributes: [{ name: 'riskLevel', type: 'select' }] }),
      ['patientAttributes.0.options'],
    ],
    [
      'a select attribute with empty options',
      testFormation({ patientAttributes: [{ name: 'riskLevel', type: 'select', options: [] }] }),
      ['patientAttributes.0.options'],
    ],
    [
      'a custom attribute without a type',
      testFormation({ patientAttributes: [{ name: 'insurer', required: true }] }),
      ['patientAttributes.0.type'],
    ],
    [
      'a custom attribute name not starting with a letter',
      testFormation({ patientAttributes: [{ name: '9lives', type: 'text' }] }),
      ['patientAttributes.0.name'],
    ],
    [
      'a built-in field rule with a type',
      testFormation({ patientAttributes: [{ name: 'birthDate', type: 'date', required: true }] }),
      ['patientAttributes.0.type'],
    ],
    [
      'two default instance phones',
      testFormation({ instancePhones: [phoneA, { ...phoneB, default: true }] }),
      ['instancePhones'],
    ],
  ];

  for (const [label, formation, paths] of invalid) {
    test(`400 FORMATION_INVALID for ${label}; the current version stays`, async () => {
      const t = await createTestTenant(app);
      const response = await publishFormation(t, formation);
      assertFormationInvalid(response, paths);
      const current = await currentFormation(t);
      assert.equal(current.version, 1);
      assert.deepEqual(current.formation, testFormation());
      assert.equal(errorCode(await t.api.get(`${t.base}/formations/2`)), 'FORMATION_NOT_FOUND');
      const versions = await t.api.get(`${t.base}/export/formation_version`);
      assert.deepEqual(
        versions.body.map((v: { version: number }) => v.version).filter((v: number) => v > 0),
        [1],
      );
      // The invalid draft is kept for fixing.
      assert.deepEqual((await t.api.get(`${t.base}/formations/draft`)).body.formation, formation);
    });
  }

  test('reports every problem at once, and a fixed draft then publishes', async () => {
    const t = await createTestTenant(app);
    const formation = testFormation({
      securityPolicies: [{ name: 'odd', permissions: ['NOPE'] }],
      roles: [{ name: 'broken', policies: ['missing'] }],
      patientAttributes: [
        { name: 'data', type: 'text' },
        { name: 'level', type: 'select' },
      ],
      instancePhones: [phoneA, { ...phoneB, default: true }],
    });
    const response = await publishFormation(t, formation);
    assertFormationInvalid(response, [
      'securityPolicies.2.permissions',
      'roles.3.policies',
      'patientAttributes.0.name',
      'patientAttributes.1.options',
      'instancePhones',
    ]);
    assert.equal(response.body[0].details.errors.length, 5);
    const fixed = testFormation({ patientAttributes: [{ name: 'level', type: 'select', options: ['LOW'] }] });
    const published = await publishFormation(t, fixed);
    assert.equal(published.status, 200);
    assert.equal(published.body.version, 2);
  });

  test('built-in field rules and valid custom attributes publish', async () => {
    const t = await createTestTenant(app);
    const formation = testFormation({
      patientAttributes: [
        { name: 'birthDate', required: true },
        { name: 'insuranceProvider', type: 'text', required: false },
        { name: 'riskLevel', type: 'select', options: ['LOW', 'HIGH'], multiple: true },
      ],
      instancePhones: [phoneA, phoneB],
    });
    const response = await publishFormation(t, formation);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.formation, formation);
  });
});

describe('GET /export/formation_version', () => {
  test('lists the versions, newest first, with their status', async () => {
    const t = await createTestTenant(app);
    const initial = await t.api.get(`${t.base}/export/formation_version`);
    assert.equal(initial.status, 200);
    assert.ok(Array.isArray(initial.body));
    for (const entry of initial.body) assert.deepEqual(Object.keys(entry).sort(), versionKeys);
    assert.deepEqual(initial.body.map((v: { version: number; status: string }) => [v.version, v.status]).sort(), [
      [-1, 'DRAFT'],
      [1, 'CURRENT'],
    ]);

    await publishFormation(t, testFormation({ territories: [{ name: 'north', territories: ['alaska'] }] }));
    await t.api.post(`${t.base}/formations/draft/publish`);
    const response = await t.api.get(`${t.base}/export/formation_version?page=0`);
    assert.equal(response.status, 200);
    const published = response.body.filter((v: { version: number }) => v.version > 0);
    assert.deepEqual(
      published.map((v: { version: number; status: string }) => [v.version, v.status]),
      [
        [3, 'CURRENT'],
        [2, 'PUBLISHED'],
        [1, 'PUBLISHED'],
      ],
    );
    const drafts = response.body.filter((v: { version: number }) => v.version === -1);
    assert.equal(drafts.length, 1);
    assert.equal(drafts[0].status, 'DRAFT');
    assert.equal(drafts[0].publishedAt, null);
    assert.equal(drafts[0].publishedByName, null);
    for (const entry of published) {
      assert.match(entry.publishedAt, timestamp);
      assert.match(entry.createdAt, timestamp);
    }
    assert.equal(published[2].publishedByName, 'SYSTEM:cli');
    assert.equal(published[0].publishedByName, `API_CLIENT:${t.adminClient.name}`);
    assert.ok(Date.parse(published[0].publishedAt) >= Date.parse(published[1].publishedAt));
    assert.ok(Date.parse(published[1].publishedAt) >= Date.parse(published[2].publishedAt));
  });

  test('an unknown instance or tenant is 404', async () => {
    const t = await createTestTenant(app);
    const instance = await t.api.get(`/${t.tenant.name}/nowhere/export/formation_version`);
    assert.equal(instance.status, 404);
    assert.equal(errorCode(instance), 'INSTANCE_NOT_FOUND');
    const tenant = await t.api.get('/no-such-tenant/sandbox/export/formation_version');
    assert.equal(tenant.status, 404);
    assert.equal(errorCode(tenant), 'TENANT_NOT_FOUND');
  });
});

describe('formation access', () => {
  test('every formation route is 401 without a token', async () => {
    const t = await createTestTenant(app);
    for (const route of routes(t.base)) {
      const response = await anonymous.request(route.method, route.url, route.body);
      assert.equal(response.status, 401, `${route.method} ${route.url}`);
      assert.equal(errorCode(response), 'NOT_VALID_JSON_WEB_TOKEN');
    }
    // Even a bad body or version is not looked at before the token.
    assert.equal((await anonymous.put(`${t.base}/formations/draft`, { widgets: 1 })).status, 401);
    assert.equal((await anonymous.get(`${t.base}/formations/abc`)).status, 401);
    assert.equal((await currentFormation(t)).version, 1);
  });

  test('reads need FORMATION_READ and writes FORMATION_WRITE: 403 ACCESS_DENIED', async () => {
    const t = await createTestTenant(app);
    const reader = await t.apiWith(['FORMATION_READ']);
    const patientsOnly = await t.apiWith(['PATIENT_READ']);
    const writerOnly = await t.apiWith(['FORMATION_WRITE']);
    const before = await currentFormation(t);
    for (const route of routes(t.base)) {
      const label = `${route.method} ${route.url}`;
      const none = await patientsOnly.request(route.method, route.url, route.body);
      assert.equal(none.status, 403, label);
      assert.equal(errorCode(none), 'ACCESS_DENIED', label);
      assert.equal(none.body[0].details.permission, route.write ? 'FORMATION_WRITE' : 'FORMATION_READ', label);

      const asReader = await reader.request(route.method, route.url, route.body);
      if (route.write) {
        assert.equal(asReader.status, 403, label);
        assert.equal(errorCode(asReader), 'ACCESS_DENIED', label);
        assert.equal(asReader.body[0].details.permission, 'FORMATION_WRITE', label);
      } else {
        assert.equal(asReader.status, 200, label);
        const asWriter = await writerOnly.request(route.method, route.url, route.body);
        assert.equal(asWriter.status, 403, label);
        assert.equal(asWriter.body[0].details.permission, 'FORMATION_READ', label);
      }
    }
    // 403 comes before validation.
    assert.equal(errorCode(await reader.put(`${t.base}/formations/draft`, { widgets: 1 })), 'ACCESS_DENIED');
    assert.equal(errorCode(await patientsOnly.get(`${t.base}/formations/abc`)), 'ACCESS_DENIED');
    // Nothing was written.
    const after = await currentFormation(t);
    assert.equal(after.version, before.version);
    assert.deepEqual(after.formation, before.formation);
    assert.deepEqual((await t.api.get(`${t.base}/formations/draft`)).body.formation, before.formation);

    // A writer without read can still set and publish the draft.
    const put = await writerOnly.put(`${t.base}/formations/draft`, before.formation);
    assert.equal(put.status, 200);
    const published = await writerOnly.post(`${t.base}/formations/draft/publish`);
    assert.equal(published.status, 200);
    assert.equal(published.body.version, before.version + 1);
  });

  test("a tenant cannot read or write another tenant's formation", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bBefore = await b.api.get(`${b.base}/formations/draft`);
    const bVersions = await b.api.get(`${b.base}/export/formation_version`);
    for (const route of routes(b.base)) {
      const body = route.method === 'PUT' ? { roles: [{ name: 'hijack', policies: [] }] } : route.body;
      const response = await a.api.request(route.method, route.url, body);
      assert.equal(response.status, 403, `${route.method} ${route.url}`);
      assert.equal(errorCode(response), 'TENANT_ACCESS_DENIED');
      assert.equal(JSON.stringify(response.body).includes('hijack'), false);
    }
    const draft = await b.api.get(`${b.base}/formations/draft`);
    assert.deepEqual(draft.body, bBefore.body);
    assert.deepEqual((await b.api.get(`${b.base}/export/formation_version`)).body, bVersions.body);
    assert.equal((await currentFormation(b)).version, 1);
    // And B's publishing does not touch A.
    await publishFormation(b, testFormation({ territories: [{ name: 'b-only', territories: ['x'] }] }));
    assert.equal((await currentFormation(a)).version, 1);
    assert.deepEqual((await currentFormation(a)).formation, testFormation());
  });

  test('permissions follow the formation at once', async () => {
    const t = await createTestTenant(app);
    const client = await t.clientWithRole('patient-reader');
    const reader = new Api(app.server, client.token);
    assert.equal((await reader.get(`${t.base}/patients`)).status, 200);

    const withoutRead = testFormation();
    withoutRead.securityPolicies = withoutRead.securityPolicies?.map((policy) =>
      policy.name === 'patient-reading' ? { ...policy, permissions: [] } : policy,
    );
    assert.equal((await publishFormation(t, withoutRead)).status, 200);
    const denied = await reader.get(`${t.base}/patients`);
    assert.equal(denied.status, 403);
    assert.equal(errorCode(denied), 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'PATIENT_READ');

    assert.equal((await publishFormation(t, testFormation())).status, 200);
    assert.equal((await reader.get(`${t.base}/patients`)).status, 200);

    // Emptying the role's policies removes its permissions too.
    const emptyRole = testFormation();
    emptyRole.roles = emptyRole.roles?.map((role) => (role.name === 'patient-reader' ? { ...role, policies: [] } : role));
    assert.equal((await publishFormation(t, emptyRole)).status, 200);
    assert.equal(errorCode(await reader.get(`${t.base}/patients`)), 'ACCESS_DENIED');
    // A draft alone changes nothing: only publishing does.
    assert.equal((await t.api.put(`${t.base}/formations/draft`, testFormation())).status, 200);
    assert.equal(errorCode(await reader.get(`${t.base}/patients`)), 'ACCESS_DENIED');
    assert.equal((await t.api.post(`${t.base}/formations/draft/publish`)).status, 200);
    assert.equal((await reader.get(`${t.base}/patients`)).status, 200);
  });
});

describe('publishing refuses a lock-out', () => {
  test('a formation without roles or policies is refused, naming what breaks; every route still answers', async () => {
    const t = await createTestTenant(app);
    assert.equal((await t.api.put(`${t.base}/formations/draft`, { roles: [], securityPolicies: [] })).status, 200);
    const refused = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(errorCode(refused), 'FORMATION_INVALID');
    const paths = refused.body[0].details.errors.map((error: { path: string }) => error.path);
    assert.ok(paths.includes('roles.admin'), paths.join());
    assert.ok(paths.includes('securityPolicies'), paths.join());
    assert.match(refused.body[0].message, /FORMATION_WRITE/);
    assert.equal((await currentFormation(t)).version, 1);
    assert.equal((await t.api.get(`${t.admin}/users`)).status, 200);
    assert.equal((await t.api.get(`${t.base}/patients`)).status, 200);
  });

  test('a role still granted to an active client or user cannot be removed; one held by nobody active can', async () => {
    const t = await createTestTenant(app);
    await t.clientWithRole('patient-reader');
    const withoutRole = testFormation();
    withoutRole.roles = withoutRole.roles?.filter((role) => role.name !== 'patient-reader');
    const refused = await publishFormation(t, withoutRole);
    assert.equal(refused.status, 400);
    assert.deepEqual(
      refused.body[0].details.errors.map((error: { path: string }) => error.path),
      ['roles.patient-reader'],
    );
    // A user holding it counts too, and a deleted user does not.
    const other = await createTestTenant(app);
    const user = await other.api.post(`${other.admin}/users`, {
      username: 'role.holder',
      email: 'holder@example.org',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
    });
    assert.equal(user.status, 201, user.text);
    assert.equal((await publishFormation(other, withoutRole)).status, 400);
    assert.equal((await other.api.delete(`${other.admin}/users/role.holder`)).status, 200);
    assert.equal((await publishFormation(other, withoutRole)).status, 200);
  });

  test('the publisher may not take FORMATION_WRITE from itself, but may from others', async () => {
    const t = await createTestTenant(app);
    const editor = await t.apiWith(['FORMATION_READ', 'FORMATION_WRITE']);
    const current = (await currentFormation(t)).formation as Formation;
    const withoutWrite: Formation = {
      ...current,
      securityPolicies: current.securityPolicies?.map((policy) =>
        policy.name.startsWith('custom-') ? { ...policy, permissions: ['FORMATION_READ'] } : policy,
      ),
    };
    const refused = await publishFormation(t, withoutWrite, editor);
    assert.equal(refused.status, 400);
    assert.match(refused.text, /FORMATION_WRITE/);
    // The admin client publishes the same formation: the editor loses the right, the admin keeps it.
    assert.equal((await publishFormation(t, withoutWrite)).status, 200);
    assert.equal(errorCode(await editor.put(`${t.base}/formations/draft`, withoutWrite)), 'ACCESS_DENIED');
  });
});

describe('the demo formation', () => {
  const demo = JSON.parse(fs.readFileSync('formations/demo.json', 'utf8')) as Formation;

  test('publishes cleanly, and its administrator role grants every permission', async () => {
    const t = await createTestTenant(app, demo, { adminRole: 'administrator' });
    const administrator = new Api(app.server, (await t.clientWithRole('administrator')).token);
    const current = await administrator.get(`${t.base}/formations/current`);
    assert.equal(current.status, 200);
    assert.equal(current.body.version, 1);
    assert.deepEqual(current.body.formation, demo);

    const granted = permissionsFromGrants(demo, [{ grant_type: 'SECURITY_ROLE', name: 'administrator' }]);
    const missing = allPermissions().filter((permission) => !granted.includes(permission));
    assert.deepEqual(missing, [], `administrator lacks ${missing.join(', ')}`);

    // Over HTTP too: the administrator reaches routes of every kind, and can publish the file again.
    assert.equal((await administrator.get(`${t.base}/patients`)).status, 200);
    assert.equal((await administrator.get(`${t.admin}/users`)).status, 200);
    assert.equal((await administrator.get(`${t.admin}/audit-data`)).status, 200);
    const again = await publishFormation(t, demo, administrator);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.version, 2);
  });

  test('the care coordinator can read but not write the formation', async () => {
    const t = await createTestTenant(app, demo, { adminRole: 'administrator' });
    const coordinator = new Api(app.server, (await t.clientWithRole('care-coordinator')).token);
    assert.equal((await coordinator.get(`${t.base}/formations/current/roles/administrator`)).status, 200);
    const put = await coordinator.put(`${t.base}/formations/draft`, demo);
    assert.equal(put.status, 403);
    assert.equal(put.body[0].details.permission, 'FORMATION_WRITE');
  });
});
