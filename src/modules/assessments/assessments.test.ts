import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestInstance,
  createTestTenant,
  errorPaths,
  isoMillis,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { localDateTime } from '../../wire/local-time.ts';

/**
 * Assessment records over HTTP: the routes, answers and their checks, scoring, completion and
 * re-completion, local times by caller, statuses, paging, permissions and tenancy.
 */

const app = await startApp();

const q = (name: string, type: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  name,
  label: `Label of ${name}`,
  viewType: 'question' as const,
  meta: { type, required: false, ...meta },
  ...extra,
});

/** Every field type, two sections, a SUM group and an AVG group; `gad-2` scores by AVG at the top too. */
function assessmentFormation(extra: Partial<Formation> = {}): Formation {
  return testFormation({
    assessments: [
      {
        name: 'screen',
        title: 'Screening',
        sections: [
          {
            name: 'first',
            title: 'First',
            order: 1,
            fields: [
              q('name', 'text', {}, { required: true }),
              q('notes', 'textarea'),
              q('count', 'integer'),
              q('weight', 'float'),
              q('alone', 'boolean'),
              q('transport', 'checkbox'),
              q('visited', 'date'),
              q('since', 'datetime'),
              q('email', 'email'),
              q('phone', 'phone'),
              q('referral', 'uuid'),
              q('details', 'object'),
            ],
          },
          {
            name: 'second',
            title: 'Second',
            order: 2,
            fields: [
              q('mood', 'select', {}, { options: [{ value: 'LOW', label: 'Low' }, 'OK', 'GOOD'], required: true }),
              q('support', 'select', {}, { options: ['FAMILY', 'FRIENDS', 'NONE'], multiple: true }),
              q('rating-a', 'integer'),
              q('rating-b', 'float'),
              // Answers of another CDT's field, by its own key.
              q('systolic', 'integer', { refCdtName: 'vitals', refCdtFieldName: 'cdtf-systolic' }),
              { name: 'shown', label: 'Shown only', viewType: 'readOnly', meta: { type: 'text' } },
            ],
          },
        ],
        scoring: {
          formula: 'SUM',
          groups: [
            {
              name: 'risk',
              title: 'Risk',
              formula: 'SUM',
              fields: [
                { refCdtName: '_screen', refCdtFieldName: 'mood', type: 'select', scores: moodScores },
                { refCdtFieldName: 'alone', type: 'boolean', scores: [{ answer: true, score: 2 }] },
                {
                  refCdtFieldName: 'support',
                  type: 'select',
                  scores: [
                    { answer: 'FAMILY', score: 1 },
                    { answer: 'NONE', score: 5 },
                  ],
                },
                { refCdtName: 'vitals', refCdtFieldName: 'cdtf-systolic', type: 'integer', scores: [{ answer: 140, score: 3 }] },
              ],
            },
            {
              name: 'ratings',
              title: 'Ratings',
              formula: 'AVG',
              fields: [
                { refCdtFieldName: 'rating-a', type: 'integer' },
                { refCdtFieldName: 'rating-b', type: 'float' },
              ],
            },
          ],
        },
      },
      {
        name: 'gad-2',
        title: 'GAD-2',
        sections: [{ name: 'only', fields: [q('nervous', 'integer'), q('worry', 'integer')] }],
        scoring: {
          formula: 'AVG',
          groups: [
            { name: 'nervous', fields: [{ refCdtFieldName: 'nervous' }] },
            { name: 'worry', fields: [{ refCdtFieldName: 'worry' }] },
          ],
        },
      },
      // Written before sections existed: kept, and records of it have no questions.
      { name: 'legacy', title: 'Legacy', questions: [{ id: 'q1' }], scoring: { type: 'SUM', bands: [] } },
    ],
    ...extra,
  });
}

const moodScores = [
  { answer: 'LOW', score: 3 },
  { answer: 'OK', score: 1 },
  { answer: 'GOOD', score: 0 },
];

interface Setup {
  t: TestTenant;
  patientId: string;
  /** `.../patients/{patientId}/assessment-records` */
  url: string;
}

async function setup(formation: Formation = assessmentFormation()): Promise<Setup> {
  const t = await createTestTenant(app, formation);
  const patient = await createPatient(t);
  return { t, patientId: patient.id, url: `${t.base}/patients/${patient.id}/assessment-records` };
}

type AnyRecord = Record<string, any> & { id: string };

async function create(api: Api, url: string, body: Record<string, unknown> = { assessmentName: 'screen' }): Promise<AnyRecord> {
  const response = await api.post(url, body);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

async function answer(api: Api, url: string, id: string, answers: Record<string, unknown>): Promise<AnyRecord> {
  const response = await api.put(`${url}/${id}/answers`, answers);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

async function put(api: Api, url: string, id: string, body: Record<string, unknown>): Promise<AnyRecord> {
  const response = await api.put(`${url}/${id}`, body);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

/** Every required question of `screen` answered. */
const required = { _screen__name: 'Ada', _screen__mood: 'OK' };

const recordKeys = [
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'createdByName',
  'updatedByName',
  'finalizedDate',
  'localFinalizedDate',
  'localCreatedDate',
  'localUpdatedDate',
  'assessmentName',
  'assessmentTitle',
  'assessmentCdtName',
  'version',
  'completedBy',
  'completedByName',
  'completedVersion',
  'patientId',
  'status',
  'answers',
  'scoring',
  'folderId',
  'expirationDate',
  'questions',
  'resolvedCdtValues',
  'pfa',
  'templateExists',
  'urlAliasId',
  'encounterId',
  'recompletedBy',
  'recompletedByName',
  'recompletedAt',
];

const localPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

describe('POST and GET /patients/{patientId}/assessment-records', () => {
  test('creates a NEW record of a formation assessment (201) and reads it back', async () => {
    const { t, patientId, url } = await setup();
    const record = await create(t.api, url, { assessmentName: 'screen', folderId: 'folder-1', patientId: randomUUID() });
    assert.deepEqual(Object.keys(record), recordKeys);
    assert.match(record.id, uuidShape);
    assert.equal(record.patientId, patientId, 'the path names the patient; a patientId in the body is ignored');
    assert.equal(record.status, 'NEW');
    assert.equal(record.version, 1);
    assert.equal(record.pfa, false);
    assert.equal(record.assessmentName, 'screen');
    assert.equal(record.assessmentTitle, 'Screening', "the formation's title by default");
    assert.equal(record.assessmentCdtName, '_screen');
    assert.equal(record.folderId, 'folder-1');
    assert.equal(record.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(record.createdBy, t.adminClient.id);
    assert.match(record.createdAt, isoMillis);
    for (const key of ['finalizedDate', 'localFinalizedDate', 'completedBy', 'completedVersion', 'recompletedAt']) {
      assert.equal(record[key], null, key);
    }
    // Answerable questions in section and field order; readOnly fields take no answer.
    assert.deepEqual(Object.keys(record.questions), [
      '_screen__name',
      '_screen__notes',
      '_screen__count',
      '_screen__weight',
      '_screen__alone',
      '_screen__transport',
      '_screen__visited',
      '_screen__since',
      '_screen__email',
      '_screen__phone',
      '_screen__referral',
      '_screen__details',
      '_screen__mood',
      '_screen__support',
      '_screen__rating-a',
      '_screen__rating-b',
      'vitals__cdtf-systolic',
    ]);
    assert.equal(record.questions._screen__mood, 'Label of mood');
    // answers: the CDT system fields, then every question, null until answered.
    assert.equal(record.answers.id, record.id);
    assert.equal(record.answers.created_by_name, record.createdByName);
    assert.equal(record.answers._screen__name, null);
    assert.equal(record.answers['vitals__cdtf-systolic'], null);
    assert.deepEqual(record.scoring, {
      formula: 'SUM',
      total: null,
      groups: [
        { name: 'risk', title: 'Risk', formula: 'SUM', score: null, scoredFields: 0 },
        { name: 'ratings', title: 'Ratings', formula: 'AVG', score: null, scoredFields: 0 },
      ],
    });
    assert.deepEqual(record.resolvedCdtValues, {});
    const read = await t.api.get(`${url}/${record.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, record);
    assert.deepEqual(
      (await auditOf(t, { entityId: record.id })).map((entry) => [entry.action, entry.entityType, entry.patientId]),
      [['ASSESSMENT_RECORD_CREATED', 'ASSESSMENT', patientId]],
    );
  });

  test('answers cannot be saved at creation; a legacy assessment has no questions and scores {}', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url, {
      assessmentName: 'screen',
      answers: { _screen__name: 'Ada' },
      _screen__name: 'Ada',
    });
    assert.equal(record.answers._screen__name, null);
    const legacy = await create(t.api, url, { assessmentName: 'legacy', assessmentTitle: 'Old one' });
    assert.deepEqual(legacy.questions, {});
    assert.deepEqual(legacy.scoring, {});
    assert.equal(legacy.assessmentTitle, 'Old one');
  });

  test('400 for an assessment not in the current formation, and for badly typed fields', async () => {
    const { t, url } = await setup();
    assertValidation(await t.api.post(url, { assessmentName: 'nope' }), 'body.assessmentName');
    assertValidation(await t.api.post(url, {}), 'body.assessmentName');
    assertValidation(await t.api.post(url, { assessmentName: 5 }), 'body.assessmentName');
    assertValidation(await t.api.post(url, { assessmentName: 'screen', status: 'DONE' }), 'body.status');
    assertValidation(await t.api.post(url, { assessmentName: 'screen', pfa: 'yes' }), 'body.pfa');
    assertValidation(await t.api.post(url, { assessmentName: 'screen', isPfa: 1 }), 'body.isPfa');
    assertValidation(await t.api.post(url, { assessmentName: 'screen', expirationDate: 'soon' }), 'body.expirationDate');
    assertValidation(await t.api.post(url, { assessmentName: 'screen', encounterId: 'abc' }), 'body.encounterId');
    assert.equal((await t.api.get(url)).body.totalElements, 0);
  });

  test('pfa is the wire key; isPfa is accepted as its alias on input', async () => {
    const { t, url } = await setup();
    const viaAlias = await create(t.api, url, { assessmentName: 'screen', isPfa: true });
    assert.equal(viaAlias.pfa, true);
    assert.equal('isPfa' in viaAlias, false);
    assert.equal((await create(t.api, url, { assessmentName: 'screen', pfa: true })).pfa, true);
    assert.equal((await put(t.api, url, viaAlias.id, { pfa: false })).pfa, false);
    assert.equal((await put(t.api, url, viaAlias.id, { isPfa: true })).pfa, true);
    assert.equal((await put(t.api, url, viaAlias.id, { isPfa: false, pfa: true })).pfa, true, 'pfa wins over its alias');
  });

  test('a record created COMPLETED is completed at once (no required questions)', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url, { assessmentName: 'gad-2', status: 'COMPLETED' });
    assert.equal(record.status, 'COMPLETED');
    assert.equal(record.completedVersion, 1);
    assert.equal(record.completedBy, t.adminClient.id);
    assert.equal(record.finalizedDate, record.createdAt);
    // screen has required questions: it cannot be created COMPLETED.
    const refused = await t.api.post(url, { assessmentName: 'screen', status: 'COMPLETED' });
    assertValidation(refused, 'answers._screen__name');
    assertValidation(refused, 'answers._screen__mood');
  });
});

describe('PUT /patients/{patientId}/assessment-records/{id}', () => {
  test('takes the whole record as read back: read-only keys are ignored, the version moves on', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const changed = await put(t.api, url, record.id, {
      ...record,
      id: randomUUID(),
      createdAt: '2000-01-01T00:00:00.000Z',
      version: 99,
      questions: { x: 'y' },
      scoring: { total: 1000 },
      answers: { _screen__name: 'sneaky' },
      folderId: 'folder-2',
      expirationDate: '2030-01-02T03:04:05+02:00',
      assessmentTitle: 'Renamed',
      encounterId: null,
    });
    assert.equal(changed.id, record.id);
    assert.equal(changed.createdAt, record.createdAt);
    assert.equal(changed.version, 2);
    assert.deepEqual(changed.questions, record.questions);
    assert.deepEqual(changed.scoring, record.scoring);
    assert.equal(changed.answers._screen__name, null);
    assert.equal(changed.folderId, 'folder-2');
    assert.equal(changed.expirationDate, '2030-01-02T01:04:05.000Z');
    assert.equal(changed.assessmentTitle, 'Renamed');
    assert.equal(changed.status, 'NEW');
    // Keys left out keep their values.
    const again = await put(t.api, url, record.id, { status: 'IN_PROGRESS' });
    assert.equal(again.folderId, 'folder-2');
    assert.equal(again.version, 3);
    assert.equal(again.status, 'IN_PROGRESS');
    // null clears.
    assert.equal((await put(t.api, url, record.id, { folderId: null })).folderId, null);
  });

  test('the assessment cannot change, a started record cannot go back to NEW, bad values are 400', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    assertValidation(await t.api.put(`${url}/${record.id}`, { assessmentName: 'gad-2' }), 'body.assessmentName');
    assert.equal((await t.api.put(`${url}/${record.id}`, { assessmentName: 'screen', status: 'NEW' })).status, 200);
    await answer(t.api, url, record.id, { _screen__notes: 'hello' });
    assertValidation(await t.api.put(`${url}/${record.id}`, { status: 'NEW' }), 'body.status');
    assertValidation(await t.api.put(`${url}/${record.id}`, { status: 'FINISHED' }), 'body.status');
    assertValidation(await t.api.put(`${url}/${record.id}`, { folderId: 5 }), 'body.folderId');
    const read = (await t.api.get(`${url}/${record.id}`)).body;
    assert.equal(read.status, 'IN_PROGRESS');
    assert.equal(read.version, 3, 'refused writes change nothing');
  });
});

describe('PUT /patients/{patientId}/assessment-records/{id}/answers', () => {
  const everyType = {
    _screen__name: 'Ada',
    _screen__notes: 'Line one\nLine two',
    _screen__count: 3,
    _screen__weight: 70.5,
    _screen__alone: false,
    _screen__transport: true,
    _screen__visited: '2024-02-29',
    _screen__since: '2024-02-29T10:00:00Z',
    _screen__email: 'ada@example.org',
    _screen__phone: '+14155550123',
    _screen__referral: randomUUID(),
    _screen__details: { a: 1 },
    _screen__mood: 'OK',
    _screen__support: ['FAMILY'],
    '_screen__rating-a': 1,
    '_screen__rating-b': 2.5,
    'vitals__cdtf-systolic': 120,
  };

  test('saves an answer of every field type; a NEW record becomes IN_PROGRESS', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const saved = await answer(t.api, url, record.id, everyType);
    assert.equal(saved.status, 'IN_PROGRESS');
    assert.equal(saved.version, 2);
    for (const [key, value] of Object.entries(everyType)) assert.deepEqual(saved.answers[key], value, key);
    assert.deepEqual((await t.api.get(`${url}/${record.id}`)).body, saved);
    assert.deepEqual(
      (await auditOf(t, { entityId: record.id })).map((entry) => [entry.action, entry.changedFields]),
      [
        ['ASSESSMENT_RECORD_UPDATED', ['answers', 'status']],
        ['ASSESSMENT_RECORD_CREATED', ['assessmentName']],
      ],
    );
  });

  test('keys left out keep their answers, null clears one, the system keys of answers are ignored', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const first = await answer(t.api, url, record.id, { _screen__name: 'Ada', _screen__count: 2 });
    const second = await answer(t.api, url, record.id, { _screen__count: null, _screen__notes: 'more' });
    assert.equal(second.answers._screen__name, 'Ada');
    assert.equal(second.answers._screen__count, null);
    assert.equal(second.answers._screen__notes, 'more');
    assert.equal(second.status, 'IN_PROGRESS');
    assert.equal(second.version, 3);
    // The answers object as read back is accepted: its system keys are read-only.
    const back = await answer(t.api, url, record.id, { ...second.answers, _screen__email: 'x@example.org' });
    assert.equal(back.answers.id, record.id);
    assert.equal(back.answers._screen__email, 'x@example.org');
    assert.equal(back.answers._screen__name, 'Ada');
    assert.equal(first.answers._screen__count, 2);
  });

  test('an unknown key or a value of the wrong type is 400 VALIDATION_ERROR naming it; nothing is saved', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const cases: [Record<string, unknown>, string][] = [
      [{ nope: 1 }, 'body.nope'],
      [{ _screen__shown: 'read only' }, 'body._screen__shown'],
      [{ '_screen__cdtf-systolic': 1 }, 'body._screen__cdtf-systolic'],
      [{ _screen__name: 5 }, 'body._screen__name'],
      [{ _screen__count: 1.5 }, 'body._screen__count'],
      [{ _screen__count: '3' }, 'body._screen__count'],
      [{ _screen__weight: 'heavy' }, 'body._screen__weight'],
      [{ _screen__alone: 'no' }, 'body._screen__alone'],
      [{ _screen__transport: 1 }, 'body._screen__transport'],
      [{ _screen__visited: '2023-02-29' }, 'body._screen__visited'],
      [{ _screen__since: 'yesterday' }, 'body._screen__since'],
      [{ _screen__email: 'ada@' }, 'body._screen__email'],
      [{ _screen__phone: '555-0123' }, 'body._screen__phone'],
      [{ _screen__referral: 'abc' }, 'body._screen__referral'],
      [{ _screen__details: [1] }, 'body._screen__details'],
      [{ _screen__mood: 'Low' }, 'body._screen__mood'],
      [{ _screen__mood: ['LOW'] }, 'body._screen__mood'],
      [{ _screen__support: 'FAMILY' }, 'body._screen__support'],
      [{ _screen__support: ['FAMILY', 'PETS'] }, 'body._screen__support'],
    ];
    for (const [body, path] of cases) {
      const response = await t.api.put(`${url}/${record.id}/answers`, body);
      assertValidation(response, path, JSON.stringify(body));
      assert.equal(response.body[0].componentType, 'REQUEST');
    }
    // Every problem at once, and the good keys beside them are not saved either.
    const many = await t.api.put(`${url}/${record.id}/answers`, { _screen__name: 'Ada', _screen__count: 'x', nope: 1 });
    assert.deepEqual(errorPaths(many).sort(), ['body._screen__count', 'body.nope']);
    assertValidation(await t.api.put(`${url}/${record.id}/answers`, ['_screen__name']), 'body');
    const read = (await t.api.get(`${url}/${record.id}`)).body;
    assert.equal(read.version, 1);
    assert.equal(read.status, 'NEW');
    assert.equal(read.answers._screen__name, null);
  });

  test('a legacy assessment has no questions: every key is unknown', async () => {
    const { t, url } = await setup();
    const legacy = await create(t.api, url, { assessmentName: 'legacy' });
    assertValidation(await t.api.put(`${url}/${legacy.id}/answers`, { _legacy__q1: 'x' }), 'body._legacy__q1');
  });
});

describe('scoring', () => {
  test('SUM groups add the scores of their answers; AVG groups average them; the total follows the formula', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const partial = await answer(t.api, url, record.id, { _screen__mood: 'LOW', '_screen__rating-a': 4 });
    assert.deepEqual(partial.scoring, {
      formula: 'SUM',
      total: 7,
      groups: [
        { name: 'risk', title: 'Risk', formula: 'SUM', score: 3, scoredFields: 1 },
        { name: 'ratings', title: 'Ratings', formula: 'AVG', score: 4, scoredFields: 1 },
      ],
    });
    const full = await answer(t.api, url, record.id, {
      _screen__alone: true,
      // A list answer scores the sum of its items' scores; PETS-free FRIENDS has none.
      _screen__support: ['FAMILY', 'FRIENDS', 'NONE'],
      'vitals__cdtf-systolic': 140,
      '_screen__rating-b': 5,
    });
    assert.deepEqual(
      full.scoring.groups.map((group: { score: number }) => group.score),
      [3 + 2 + 6 + 3, 4.5],
    );
    assert.equal(full.scoring.total, 18.5);
    // An answer with no listed score gives none; clearing an answer takes its score away.
    const less = await answer(t.api, url, record.id, { _screen__alone: false, _screen__mood: null, '_screen__rating-a': null });
    assert.deepEqual(
      less.scoring.groups.map((group: { score: number; scoredFields: number }) => [group.score, group.scoredFields]),
      [
        [9, 2],
        [5, 1],
      ],
    );
    assert.equal(less.scoring.total, 14);
    // Decimal averages are written as decimals (no 0.30000000000000004).
    const tenths = await answer(t.api, url, record.id, { '_screen__rating-a': 0, '_screen__rating-b': 0.6 });
    assert.equal(tenths.scoring.groups[1].score, 0.3);
  });

  test('an AVG total averages the groups; a group without scores falls back to it and waits for answers', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url, { assessmentName: 'gad-2' });
    assert.deepEqual(record.scoring, {
      formula: 'AVG',
      total: null,
      groups: [
        { name: 'nervous', title: null, formula: 'AVG', score: null, scoredFields: 0 },
        { name: 'worry', title: null, formula: 'AVG', score: null, scoredFields: 0 },
      ],
    });
    const one = await answer(t.api, url, record.id, { '_gad-2__nervous': 1 });
    assert.equal(one.scoring.total, 1);
    const both = await answer(t.api, url, record.id, { '_gad-2__worry': 2 });
    assert.equal(both.scoring.total, 1.5);
  });
});

describe('completion', () => {
  test('COMPLETED needs every required answer, then sets finalizedDate, completedBy(Name) and completedVersion', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const refused = await t.api.put(`${url}/${record.id}`, { status: 'COMPLETED' });
    assertValidation(refused, 'answers._screen__name');
    assertValidation(refused, 'answers._screen__mood');
    await answer(t.api, url, record.id, { ...required, _screen__name: '  ' });
    assertValidation(await t.api.put(`${url}/${record.id}`, { status: 'COMPLETED' }), 'answers._screen__name');
    await answer(t.api, url, record.id, required);
    const completed = await put(t.api, url, record.id, { status: 'COMPLETED' });
    assert.equal(completed.status, 'COMPLETED');
    assert.equal(completed.version, 4);
    assert.equal(completed.completedVersion, 4, "the record's version the completion wrote");
    assert.equal(completed.completedBy, t.adminClient.id);
    assert.equal(completed.completedByName, `API_CLIENT:${t.adminClient.name}`);
    assert.match(completed.finalizedDate, isoMillis);
    assert.equal(completed.finalizedDate, completed.updatedAt);
    assert.equal(completed.localFinalizedDate, completed.finalizedDate.replace('Z', '+00:00'));
    assert.equal(completed.recompletedAt, null);
    const actions = (await auditOf(t, { entityId: record.id })).map((entry) => entry.action);
    assert.deepEqual(actions.slice(0, 2).sort(), ['ASSESSMENT_RECORD_COMPLETED', 'ASSESSMENT_RECORD_UPDATED']);
  });

  test('completing again re-completes: recompleted* are set, the first completion is kept', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    await answer(t.api, url, record.id, required);
    const first = await put(t.api, url, record.id, { status: 'COMPLETED' });
    // PUT COMPLETED on a COMPLETED record, by another caller.
    const other = await t.apiWith(['ASSESSMENT_UPDATE', 'ASSESSMENT_READ']);
    const again = await put(other, url, record.id, { ...first });
    assert.equal(again.status, 'COMPLETED');
    assert.equal(again.finalizedDate, first.finalizedDate);
    assert.equal(again.completedBy, first.completedBy);
    assert.equal(again.completedVersion, first.completedVersion);
    assert.notEqual(again.recompletedBy, null);
    assert.notEqual(again.recompletedBy, first.completedBy);
    assert.match(again.recompletedByName, /^API_CLIENT:/);
    assert.equal(again.recompletedAt, again.updatedAt);
    assert.equal(again.version, first.version + 1);
    assert.ok((await auditOf(t, { entityId: record.id, action: 'ASSESSMENT_RECORD_RECOMPLETED' })).length === 1);
  });

  test('answers of a COMPLETED record may change: it moves to IN_PROGRESS until completed again', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    await answer(t.api, url, record.id, required);
    const first = await put(t.api, url, record.id, { status: 'COMPLETED' });
    // The same answers again change nothing: the record stays COMPLETED.
    const same = await answer(t.api, url, record.id, required);
    assert.equal(same.status, 'COMPLETED');
    const reopened = await answer(t.api, url, record.id, { _screen__mood: 'LOW' });
    assert.equal(reopened.status, 'IN_PROGRESS');
    assert.equal(reopened.finalizedDate, first.finalizedDate, 'the first completion stays on record');
    assert.equal(reopened.scoring.groups[0].score, 3);
    const recompleted = await put(t.api, url, record.id, { status: 'COMPLETED' });
    assert.equal(recompleted.status, 'COMPLETED');
    assert.equal(recompleted.completedVersion, first.completedVersion);
    assert.match(recompleted.recompletedAt, isoMillis);
    assert.equal(recompleted.recompletedBy, t.adminClient.id);
    // An explicit reopen is allowed too; back to NEW is not.
    assert.equal((await put(t.api, url, record.id, { status: 'IN_PROGRESS' })).status, 'IN_PROGRESS');
    assertValidation(await t.api.put(`${url}/${record.id}`, { status: 'NEW' }), 'body.status');
  });
});

describe('local dates', () => {
  test("are in a user caller's time zone, and in UTC (+00:00) for an API client", async () => {
    const { t, url } = await setup();
    const username = `pacific-${randomUUID().slice(0, 8)}`;
    const user = await t.api.post(`${t.admin}/users`, {
      username,
      email: `${username}@example.org`,
      firstName: 'Pat',
      lastName: 'Cific',
      timezone: 'US/Pacific',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox', primaryRole: true }],
    });
    assert.equal(user.status, 201, user.text);
    const password = 'correct horse battery staple';
    assert.equal((await t.api.put(`${t.admin}/users/${username}/password`, { password })).status, 200);
    const login = await t.anonymous.post('/auth/token', { tenantName: t.tenant.name, username, password });
    assert.equal(login.status, 200, login.text);
    const asUser = new Api(app.server, login.body.token);

    const record = await create(asUser, url, { assessmentName: 'gad-2', status: 'COMPLETED' });
    assert.equal(record.createdBy, user.body.id);
    for (const [local, utc] of [
      ['localCreatedDate', 'createdAt'],
      ['localUpdatedDate', 'updatedAt'],
      ['localFinalizedDate', 'finalizedDate'],
    ] as const) {
      assert.match(record[local], localPattern, local);
      assert.match(record[local], /-0[78]:00$/, `${local}: ${record[local]}`);
      assert.equal(record[local], localDateTime(new Date(record[utc]), 'US/Pacific'));
      assert.equal(new Date(record[local]).getTime(), new Date(record[utc]).getTime(), 'the same instant');
    }
    // The same record read by an API client: UTC, written +00:00.
    const asClient = (await t.api.get(`${url}/${record.id}`)).body;
    assert.equal(asClient.localCreatedDate, record.createdAt.replace('Z', '+00:00'));
    assert.equal(asClient.localFinalizedDate, record.finalizedDate.replace('Z', '+00:00'));
    // And in the list, by the user.
    const listed = (await asUser.get(url)).body.content[0];
    assert.equal(listed.localCreatedDate, record.localCreatedDate);
  });
});

describe('GET /patients/{patientId}/assessment-records (list)', () => {
  test('a page object, newest first; statuses filter (CSV or repeated); page and size', async () => {
    const { t, patientId, url } = await setup();
    const a = await create(t.api, url);
    const b = await create(t.api, url, { assessmentName: 'gad-2', status: 'IN_PROGRESS' });
    const c = await create(t.api, url, { assessmentName: 'gad-2', status: 'COMPLETED' });
    const ids = async (query: string) => {
      const response = await t.api.get(`${url}${query}`);
      assert.equal(response.status, 200, response.text);
      return response.body.content.map((record: { id: string }) => record.id);
    };
    const page = (await t.api.get(url)).body;
    assert.deepEqual(Object.keys(page).sort(), pageObjectKeys);
    assert.equal(page.totalElements, 3);
    assert.deepEqual(
      page.content.map((record: { id: string }) => record.id),
      [c.id, b.id, a.id],
    );
    assert.deepEqual(page.content[2], (await t.api.get(`${url}/${a.id}`)).body, 'a listed record is the record as read');
    assert.deepEqual(await ids('?statuses=NEW'), [a.id]);
    assert.deepEqual(await ids('?statuses=NEW,COMPLETED'), [c.id, a.id]);
    assert.deepEqual(await ids('?statuses=NEW&statuses=IN_PROGRESS'), [b.id, a.id]);
    assert.equal((await t.api.get(`${url}?statuses=COMPLETED`)).body.totalElements, 1);
    assertValidation(await t.api.get(`${url}?statuses=DONE`), 'querystring.statuses');
    // Paging.
    const second = (await t.api.get(`${url}?page=1&size=2`)).body;
    assert.equal(second.totalPages, 2);
    assert.equal(second.number, 1);
    assert.equal(second.last, true);
    assert.deepEqual(
      second.content.map((record: { id: string }) => record.id),
      [a.id],
    );
    const beyond = (await t.api.get(`${url}?page=5&size=2`)).body;
    assert.equal(beyond.totalElements, 3);
    assert.deepEqual(beyond.content, []);
    assertValidation(await t.api.get(`${url}?size=0`), 'querystring.size');
    // Sorts.
    assert.deepEqual(await ids('?sort=createdAt,asc'), [a.id, b.id, c.id]);
    await answer(t.api, url, a.id, { _screen__name: 'touched' });
    assert.deepEqual((await ids('?sort=updatedAt,desc'))[0], a.id);
    assert.deepEqual((await ids('?sort=finalizedDate,desc')).at(-1), c.id, 'nulls first when descending');
    assert.equal((await t.api.get(`${url}?sort=createdAt,asc`)).body.sort.sorted, true);
    assertCode(await t.api.get(`${url}?sort=status,asc`), 400, 'INVALID_SORT');
    // Another patient's records are not listed; an empty page has the empty shape.
    const other = await createPatient(t);
    const empty = (await t.api.get(`${t.base}/patients/${other.id}/assessment-records`)).body;
    assert.deepEqual(
      [empty.totalElements, empty.totalPages, empty.numberOfElements, empty.empty, empty.first, empty.last],
      [0, 0, 0, true, true, true],
    );
    assert.ok(patientId);
  });
});

describe('DELETE /patients/{patientId}/assessment-records/{id}', () => {
  test('answers 200 with an empty body; the record is gone (404 ASSESSMENT_RECORD_NOT_FOUND)', async () => {
    const { t, patientId, url } = await setup();
    const record = await create(t.api, url);
    const deleted = await t.api.delete(`${url}/${record.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.text, '');
    const missing = await t.api.get(`${url}/${record.id}`);
    assertCode(missing, 404, 'ASSESSMENT_RECORD_NOT_FOUND');
    assert.equal(missing.body[0].componentType, 'ASSESSMENT');
    assert.equal(missing.body[0].message, 'Assessment record for patient not found');
    assert.deepEqual(missing.body[0].details, { recordId: record.id, patientId });
    assertCode(await t.api.delete(`${url}/${record.id}`), 404, 'ASSESSMENT_RECORD_NOT_FOUND');
    assert.deepEqual(
      (await auditOf(t, { entityId: record.id })).map((entry) => entry.action),
      ['ASSESSMENT_RECORD_DELETED', 'ASSESSMENT_RECORD_CREATED'],
    );
  });

  test("a deleted patient's records go with it", async () => {
    const { t, patientId, url } = await setup();
    await create(t.api, url);
    await create(t.api, url, { assessmentName: 'gad-2' });
    assert.equal((await t.api.delete(`${t.base}/patients/${patientId}`)).status, 200);
    const left = await app.services.db
      .selectFrom('assessment_records')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('tenant_id', '=', t.tenant.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.count), 0);
  });
});

describe('errors, access and tenancy', () => {
  const routes = (url: string, id: string) =>
    [
      ['GET', url, undefined],
      ['POST', url, { assessmentName: 'screen' }],
      ['GET', `${url}/${id}`, undefined],
      ['PUT', `${url}/${id}`, { folderId: 'x' }],
      ['PUT', `${url}/${id}/answers`, { _screen__name: 'x' }],
      ['DELETE', `${url}/${id}`, undefined],
    ] as const;

  test('404: an unknown record is ASSESSMENT_RECORD_NOT_FOUND, an unknown patient PATIENT_NOT_FOUND; a bad id 400', async () => {
    const { t, patientId, url } = await setup();
    const unknown = randomUUID();
    for (const [method, path, body] of routes(url, unknown).slice(2)) {
      const response = await t.api.request(method, path, body);
      assertCode(response, 404, 'ASSESSMENT_RECORD_NOT_FOUND', `${method} ${path}`);
      assert.deepEqual(response.body[0].details, { recordId: unknown, patientId });
    }
    const noPatient = `${t.base}/patients/${randomUUID()}/assessment-records`;
    for (const [method, path, body] of routes(noPatient, unknown)) {
      assertCode(await t.api.request(method, path, body), 404, 'PATIENT_NOT_FOUND', `${method} ${path}`);
    }
    assertValidation(await t.api.get(`${url}/not-a-uuid`), 'params.assessmentRecordId');
    assertValidation(await t.api.get(`${t.base}/patients/nope/assessment-records`), 'params.patientId');
  });

  test('401 without a token; 403 without the permission each route needs', async () => {
    const { t, url } = await setup();
    const record = await create(t.api, url);
    const reader = await t.apiWith(['ASSESSMENT_READ']);
    const writer = await t.apiWith(['ASSESSMENT_UPDATE']);
    for (const [method, path, body] of routes(url, record.id)) {
      assertCode(await t.anonymous.request(method, path, body), 401, 'NOT_VALID_JSON_WEB_TOKEN', `${method} ${path}`);
      const needed = method === 'GET' ? 'ASSESSMENT_READ' : 'ASSESSMENT_UPDATE';
      const denied = await (method === 'GET' ? writer : reader).request(method, path, body);
      assertCode(denied, 403, 'ACCESS_DENIED', `${method} ${path}`);
      assert.equal(denied.body[0].details.permission, needed);
    }
    assert.equal((await reader.get(`${url}/${record.id}`)).status, 200);
    assert.equal((await writer.put(`${url}/${record.id}`, { folderId: 'w' })).status, 200);
    assert.equal((await t.api.get(`${url}/${record.id}`)).body.folderId, 'w', 'the refused writes changed nothing');
  });

  test("tenant A never sees nor changes tenant B's records", async () => {
    const a = await setup();
    const b = await setup();
    const theirs = await create(b.t.api, b.url);
    await answer(b.t.api, b.url, theirs.id, { _screen__name: 'B' });
    const before = (await b.t.api.get(`${b.url}/${theirs.id}`)).body;
    // B's URL with A's token: another tenant.
    for (const [method, path, body] of routes(b.url, theirs.id)) {
      assertCode(await a.t.api.request(method, path, body), 403, 'TENANT_ACCESS_DENIED', `${method} ${path}`);
    }
    // B's patient under A's own tenant: unknown here.
    for (const [method, path, body] of routes(`${a.t.base}/patients/${b.patientId}/assessment-records`, theirs.id)) {
      assertCode(await a.t.api.request(method, path, body), 404, 'PATIENT_NOT_FOUND', `${method} ${path}`);
    }
    // B's record id under A's own patient: unknown here.
    for (const [method, path, body] of routes(a.url, theirs.id).slice(2)) {
      assertCode(await a.t.api.request(method, path, body), 404, 'ASSESSMENT_RECORD_NOT_FOUND', `${method} ${path}`);
    }
    assert.equal((await a.t.api.get(a.url)).body.totalElements, 0);
    assert.deepEqual((await b.t.api.get(`${b.url}/${theirs.id}`)).body, before);
  });
});

describe('the assessment formation', () => {
  const publish = async (t: TestTenant, formation: Formation) => {
    const draft = await t.api.put(`${t.base}/formations/draft`, formation);
    assert.equal(draft.status, 200, draft.text);
    return t.api.post(`${t.base}/formations/draft/publish`);
  };

  test('publish checks question types, select options, answer keys and what scoring refers to', async () => {
    const { t } = await setup(testFormation());
    const response = await publish(
      t,
      testFormation({
        assessments: [
          {
            name: 'bad',
            sections: [
              {
                name: 's',
                fields: [
                  { name: 'a', meta: { type: 'colour' } },
                  { name: 'b', meta: { type: 'SELECT' } },
                  { name: 'c' },
                  { name: 'a2', refCdtFieldName: 'a', meta: { type: 'text' } },
                  { name: 'r', viewType: 'readOnly' },
                ],
              },
            ],
            scoring: { groups: [{ name: 'g', fields: [{ refCdtFieldName: 'missing' }, { refCdtFieldName: 'r' }] }] },
          },
        ],
      }),
    );
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body[0].errorCode, 'FORMATION_INVALID');
    const paths = (response.body[0].details.errors as { path: string }[]).map((error) => error.path).sort();
    assert.deepEqual(paths, [
      'assessments.0.scoring.groups.0.fields.0',
      'assessments.0.scoring.groups.0.fields.1',
      'assessments.0.sections.0.fields.0.meta.type',
      'assessments.0.sections.0.fields.1.meta.options',
      'assessments.0.sections.0.fields.2.meta.type',
      'assessments.0.sections.0.fields.3.name',
    ]);
    const badFormula = await t.api.put(
      `${t.base}/formations/draft`,
      testFormation({ assessments: [{ name: 'x', scoring: { formula: 'MAX' as 'SUM' } }] }),
    );
    assert.equal(badFormula.status, 400, badFormula.text);
  });

  test('a record follows the current formation: a new question shows, and scoring is computed again on save', async () => {
    const formation = assessmentFormation();
    const { t, url } = await setup(formation);
    const record = await create(t.api, url, { assessmentName: 'gad-2' });
    const gad = formation.assessments!.find((assessment) => assessment.name === 'gad-2')!;
    gad.sections![0]!.fields.push({ name: 'sleep', label: 'Sleep', meta: { type: 'integer' } });
    gad.scoring!.groups![1]!.fields.push({ refCdtFieldName: 'sleep' });
    assert.equal((await publish(t, formation)).status, 200);
    const saved = await answer(t.api, url, record.id, { '_gad-2__worry': 2, '_gad-2__sleep': 4 });
    assert.equal(saved.questions['_gad-2__sleep'], 'Sleep');
    assert.equal(saved.scoring.groups[1].score, 3);
    // A record of an assessment the formation no longer has keeps what it holds, but takes no answers.
    assert.equal((await publish(t, testFormation())).status, 200);
    assert.equal((await t.api.get(`${url}/${record.id}`)).body.answers['_gad-2__sleep'], 4);
    assertValidation(await t.api.put(`${url}/${record.id}/answers`, { '_gad-2__sleep': 1 }), 'body');
    assert.equal((await put(t.api, url, record.id, { status: 'COMPLETED' })).status, 'COMPLETED');
    assertValidation(await t.api.post(url, { assessmentName: 'gad-2' }), 'body.assessmentName');
  });
});

describe('encounterId', () => {
  /** An encounter of the patient, made over the API of the tenant's instance `t`. */
  async function encounterOf(t: TestTenant, patientId: string): Promise<string> {
    const made = await t.api.post(`${t.base}/patients/${patientId}/encounters`, { title: 'Visit' });
    assert.equal(made.status, 201, made.text);
    return made.body.id;
  }

  test("names an encounter of the same patient in this instance; another tenant's, instance's or patient's is 404 ENCOUNTER_NOT_FOUND", async () => {
    const { t, patientId, url } = await setup();
    const own = await encounterOf(t, patientId);
    const otherPatient = await encounterOf(t, (await createPatient(t)).id);
    const live = await createTestInstance(t, 'live', assessmentFormation());
    const otherInstance = await encounterOf(live, (await createPatient(live)).id);
    const b = await setup();
    const otherTenant = await encounterOf(b.t, b.patientId);
    for (const [label, encounterId] of [
      ["another tenant's", otherTenant],
      ["another instance's", otherInstance],
      ["another patient's", otherPatient],
      ['an unknown', randomUUID()],
    ] as const) {
      const refused = await t.api.post(url, { assessmentName: 'screen', encounterId });
      assertCode(refused, 404, 'ENCOUNTER_NOT_FOUND', label);
      assert.deepEqual(refused.body[0].details, { encounterId, patientId }, label);
    }
    assert.equal((await t.api.get(url)).body.totalElements, 0, 'the refused creates wrote nothing');

    const record = await create(t.api, url, { assessmentName: 'screen', encounterId: own.toUpperCase() });
    assert.equal(record.encounterId, own, 'stored as the encounter id is');
    for (const encounterId of [otherTenant, otherInstance, otherPatient]) {
      assertCode(await t.api.put(`${url}/${record.id}`, { encounterId }), 404, 'ENCOUNTER_NOT_FOUND');
    }
    const read = (await t.api.get(`${url}/${record.id}`)).body;
    assert.equal(read.encounterId, own);
    assert.equal(read.version, 1, 'the refused changes wrote nothing');
    const second = await encounterOf(t, patientId);
    assert.equal((await put(t.api, url, record.id, { encounterId: second })).encounterId, second);
    assert.equal((await put(t.api, url, record.id, { encounterId: null })).encounterId, null);
  });

  test("PUT checks only an encounterId other than the record's own: the record sent back as read is taken", async () => {
    const { t, patientId, url } = await setup();
    const encounterId = await encounterOf(t, patientId);
    const record = await create(t.api, url, { assessmentName: 'screen', encounterId });
    assert.equal((await t.api.delete(`${t.base}/patients/${patientId}/encounters/${encounterId}`)).status, 200);
    // The encounter is gone; the record still names it, and sending it back changes nothing of that.
    const again = await put(t.api, url, record.id, { ...record, folderId: 'kept' });
    assert.equal(again.encounterId, encounterId);
    assert.equal(again.folderId, 'kept');
    assertCode(await t.api.post(url, { assessmentName: 'screen', encounterId }), 404, 'ENCOUNTER_NOT_FOUND');
  });
});
