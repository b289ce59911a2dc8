import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
import { assertOutcome, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { type Api, createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/**
 * QuestionnaireResponse (US Core 6.1.0 QuestionnaireResponse) from assessment records: every
 * resource the routes answer validates against the profile, its answers are items of the right value types,
 * its status is a QuestionnaireResponseStatus code; searches, paging, permissions, tenancy and the
 * access log.
 */

const app = await startApp();

/** QuestionnaireResponseStatus: a required binding, its codes checked here since the validator checks none. */
const STATUSES = ['in-progress', 'completed', 'amended', 'entered-in-error', 'stopped'];

const q = (name: string, type: string, meta: Record<string, unknown> = {}) => ({
  name,
  label: `Label of ${name}`,
  viewType: 'question' as const,
  meta: { type, required: false, ...meta },
});

const formation = (): Formation =>
  testFormation({
    assessments: [
      {
        name: 'screen',
        title: 'Screening',
        sections: [
          {
            name: 'only',
            fields: [
              q('name', 'text'),
              q('count', 'integer'),
              q('weight', 'float'),
              q('alone', 'boolean'),
              q('visited', 'date'),
              q('since', 'datetime'),
              q('details', 'object'),
              q('support', 'select', { options: ['FAMILY', 'FRIENDS', 'NONE'], multiple: true }),
              q('unanswered', 'text'),
            ],
          },
        ],
      },
      { name: 'gad-2', title: 'GAD-2', sections: [{ name: 'only', fields: [q('nervous', 'integer')] }] },
    ],
  });

const records = (t: TestTenant, patientId: string) => `${t.base}/patients/${patientId}/assessment-records`;

async function createRecord(api: Api, t: TestTenant, patientId: string, assessmentName = 'screen') {
  const response = await api.post(records(t, patientId), { assessmentName });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string };
}

async function change(api: Api, url: string, body: Record<string, unknown>) {
  const response = await api.put(url, body);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

function assertValid(resource: any) {
  assert.deepEqual(usCoreErrors(resource, 'us-core-questionnaireresponse'), []);
  assert.ok(STATUSES.includes(resource.status), resource.status);
}

describe('FHIR R4: QuestionnaireResponse (assessment records)', () => {
  test('answers as items of their value types, validated against US Core; status, questionnaire, author; searches and paging', async () => {
    const t = await createTestTenant(app, formation());
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Other' });
    const answered = await createRecord(t.api, t, patient.id);
    const url = `${records(t, patient.id)}/${answered.id}`;
    await change(t.api, `${url}/answers`, {
      _screen__name: 'Ada',
      _screen__count: 3,
      _screen__weight: 70.5,
      _screen__alone: false,
      _screen__visited: '2024-02-29',
      _screen__since: '2024-02-29T10:00:00Z',
      _screen__details: { a: 1 },
      _screen__support: ['FAMILY', 'FRIENDS'],
    });
    const completed = await createRecord(t.api, t, patient.id, 'gad-2');
    const completedUrl = `${records(t, patient.id)}/${completed.id}`;
    await change(t.api, `${completedUrl}/answers`, { '_gad-2__nervous': 2 });
    const first = await change(t.api, completedUrl, { status: 'COMPLETED' });
    const amended = await createRecord(t.api, t, other.id, 'gad-2');
    const amendedUrl = `${records(t, other.id)}/${amended.id}`;
    const done = await change(t.api, amendedUrl, { status: 'COMPLETED' });
    const again = await t.apiWith(['ASSESSMENT_UPDATE', 'ASSESSMENT_READ']);
    await change(again, amendedUrl, { ...done });
    const bare = await createRecord(t.api, t, other.id);

    const read = await t.api.get(`${fhirBase(t)}/QuestionnaireResponse/${answered.id}`);
    assert.equal(read.status, 200, read.text);
    assert.match(String(read.headers['content-type']), /^application\/fhir\+json/);
    const response = read.body;
    assertValid(response);
    assert.equal(response.status, 'in-progress');
    assert.deepEqual(response.identifier, {
      use: 'usual',
      system: 'https://cairn.health/fhir/sid/assessment-record-id',
      value: answered.id,
    });
    assert.equal(response.questionnaire, `http://localhost:80${fhirBase(t)}/Questionnaire/screen`);
    assert.equal(response._questionnaire.extension[0].valueString, 'Screening');
    assert.deepEqual(response.subject, { reference: `Patient/${patient.id}` });
    assert.deepEqual(response.author, { display: `API_CLIENT:${t.adminClient.name}` }, 'an API client is named only');
    assert.match(response.authored, /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(response.item, [
      { linkId: '_screen__name', text: 'Label of name', answer: [{ valueString: 'Ada' }] },
      { linkId: '_screen__count', text: 'Label of count', answer: [{ valueInteger: 3 }] },
      { linkId: '_screen__weight', text: 'Label of weight', answer: [{ valueDecimal: 70.5 }] },
      { linkId: '_screen__alone', text: 'Label of alone', answer: [{ valueBoolean: false }] },
      { linkId: '_screen__visited', text: 'Label of visited', answer: [{ valueDate: '2024-02-29' }] },
      {
        linkId: '_screen__since',
        text: 'Label of since',
        answer: [{ valueDateTime: response.item[5].answer[0].valueDateTime }],
      },
      { linkId: '_screen__details', text: 'Label of details', answer: [{ valueString: '{"a":1}' }] },
      {
        linkId: '_screen__support',
        text: 'Label of support',
        answer: [{ valueString: 'FAMILY' }, { valueString: 'FRIENDS' }],
      },
    ]);
    assert.equal(new Date(response.item[5].answer[0].valueDateTime).toISOString(), '2024-02-29T10:00:00.000Z');
    // A record with no answers: no items, still valid.
    const minimal = (await t.api.get(`${fhirBase(t)}/QuestionnaireResponse/${bare.id}`)).body;
    assertValid(minimal);
    assert.equal(minimal.item, undefined);
    const byStatus = async (id: string) => (await t.api.get(`${fhirBase(t)}/QuestionnaireResponse/${id}`)).body;
    assert.equal((await byStatus(completed.id)).status, 'completed');
    assert.equal((await byStatus(amended.id)).status, 'amended', 'completed again: amended');

    const search = async (query: string) => {
      const found = await t.api.get(`${fhirBase(t)}/QuestionnaireResponse?${query}`);
      assert.equal(found.status, 200, found.text);
      for (const entry of found.body.entry ?? []) assertValid(entry.resource);
      return idsOf(found.body);
    };
    assert.deepEqual(await search(`patient=${patient.id}`), [answered.id, completed.id].sort());
    assert.deepEqual(await search(`subject=Patient/${other.id}`), [amended.id, bare.id].sort());
    assert.deepEqual(await search('status=in-progress'), [answered.id, bare.id].sort());
    assert.deepEqual(await search('status=completed'), [completed.id]);
    assert.deepEqual(await search('status=completed,amended'), [completed.id, amended.id].sort());
    assert.deepEqual(await search('status=stopped'), []);
    assert.deepEqual(await search('questionnaire=gad-2'), [completed.id, amended.id].sort());
    assert.deepEqual(
      await search(`questionnaire=${encodeURIComponent(`http://localhost:80${fhirBase(t)}/Questionnaire/screen|1`)}`),
      [answered.id, bare.id].sort(),
    );
    assert.deepEqual(await search(`questionnaire=gad-2&patient=${other.id}`), [amended.id]);
    assert.deepEqual(await search(`authored=ge${first.updatedAt}&questionnaire=gad-2`), [completed.id, amended.id].sort());
    assert.deepEqual(await search('authored=lt2000'), []);
    assert.deepEqual(await search(`_id=${bare.id}`), [bare.id]);
    assertOutcome(await t.api.get(`${fhirBase(t)}/QuestionnaireResponse?status=done`), 400, 'VALIDATION_ERROR');
    assertOutcome(await t.api.get(`${fhirBase(t)}/QuestionnaireResponse?authored=soon`), 400, 'VALIDATION_ERROR');
    assert.equal((await t.api.get(`${fhirBase(t)}/QuestionnaireResponse?_summary=count`)).body.total, 4);

    const seen: string[] = [];
    let next: string | undefined = `${fhirBase(t)}/QuestionnaireResponse?_count=3`;
    while (next) {
      const page: any = (await t.api.get(next.replace('http://localhost:80', ''))).body;
      seen.push(...page.entry.map((entry: any) => entry.resource.id));
      next = page.link.find((link: any) => link.relation === 'next')?.url;
    }
    assert.deepEqual(seen, [answered.id, completed.id, amended.id, bare.id].sort());

    // A deleted record is gone.
    assert.equal((await t.api.delete(`${records(t, other.id)}/${bare.id}`)).status, 200);
    assertOutcome(await t.api.get(`${fhirBase(t)}/QuestionnaireResponse/${bare.id}`), 404, 'ASSESSMENT_RECORD_NOT_FOUND');
  });

  test("ASSESSMENT_READ is needed; a missing or another tenant's record is 404; reads name their patients in the access log", async () => {
    const t = await createTestTenant(app, formation());
    const other = await createTestTenant(app, formation());
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const mine = await createRecord(t.api, t, patient.id);
    const theirs = await createRecord(other.api, other, (await createPatient(other, { firstName: 'Bo', lastName: 'B' })).id);
    for (const id of [theirs.id, randomUUID(), 'nope']) {
      assertOutcome(await t.api.get(`${fhirBase(t)}/QuestionnaireResponse/${id}`), 404, 'ASSESSMENT_RECORD_NOT_FOUND');
    }
    assert.deepEqual(idsOf((await t.api.get(`${fhirBase(t)}/QuestionnaireResponse`)).body), [mine.id]);
    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await patientReader.get(`${fhirBase(t)}/QuestionnaireResponse`), 403, 'ACCESS_DENIED');

    assert.equal((await t.api.get(`${fhirBase(t)}/QuestionnaireResponse/${mine.id}`)).status, 200);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const [read, search] = (log.body.data as any[]).filter((record) =>
      record.operation.includes('/fhir/R4/QuestionnaireResponse'),
    );
    assert.deepEqual([read.resourceType, read.patientIds, read.recordIds], ['ASSESSMENT_RECORD', [patient.id], [mine.id]]);
    assert.deepEqual([search.resourceType, search.patientIds], ['ASSESSMENT_RECORD', [patient.id]]);
  });
});
