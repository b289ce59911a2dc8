import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, test } from 'node:test';
import { filesUnder, multipart, sampleFile } from '../../test/files.ts';
import {
  type Api,
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  startApp,
  testFormation,
} from '../../test/harness.ts';

/** Document summaries: the summary routes, file upload and download, links, and type records. */

let now = new Date();
const app = await startApp({}, { clock: { now: () => now } });
const filesRoot = path.join(app.config.dataDir, 'files');

const formation = () =>
  testFormation({
    documentTypes: [
      {
        name: 'doc-type-lab',
        title: 'Lab result',
        fields: [
          { name: 'labName', type: 'text', required: true },
          { name: 'drawnOn', type: 'date' },
        ],
      },
    ],
  });

async function setup() {
  const t = await createTestTenant(app, formation());
  const patientId = (await createPatient(t)).id;
  return { t, patientId, base: `${t.base}/patients/${patientId}/document-summary` };
}

async function createSummary(api: Api, base: string, body: Record<string, unknown> = {}) {
  const response = await api.post(base, { type: 'doc-type-others', ...body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

async function upload(api: Api, url: string, parts: Parameters<typeof multipart>[0]) {
  const { body, headers } = multipart(parts);
  return api.request('POST', url, body, headers);
}

/** The raw bytes of a GET, which the JSON helper would decode as text. */
async function download(url: string, headers: Record<string, string> = {}) {
  return app.server.inject({ method: 'GET', url, headers });
}

describe('document summaries', () => {
  test('create answers 201 with the CDT record shape and files null; list, get, put and delete follow', async () => {
    const { t, patientId, base } = await setup();
    const created = await createSummary(t.api, base);
    assert.equal(created.cdtName, '_document_summary');
    assert.equal(created.patientId, patientId);
    assert.equal(created.jsonBody.type, 'doc-type-others');
    assert.equal(created.jsonBody.files, null);
    assert.equal(created.jsonBody.id, created.id);

    const list = await t.api.get(base);
    assert.equal(list.status, 200);
    assert.equal(list.body.name, '_document_summary');
    assert.equal(list.body.data.totalElements, 1);
    assert.equal(list.body.data.content[0].id, created.id);

    const read = await t.api.get(`${base}/${created.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.jsonBody, created.jsonBody);

    const put = await t.api.put(`${base}/${created.id}`, { type: 'doc-type-esign' });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.jsonBody.type, 'doc-type-esign');

    const removed = await t.api.delete(`${base}/${created.id}`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assertCode(await t.api.get(`${base}/${created.id}`), 404, 'DT_RECORD_NOT_FOUND');
  });

  test('the list filters by sourceId and pages', async () => {
    const { t, base } = await setup();
    const sourceId = randomUUID();
    await createSummary(t.api, base, { sourceId, sourceType: 'ASSESSMENT', sourceName: 'phq-9' });
    await createSummary(t.api, base);
    await createSummary(t.api, base);
    const bySource = await t.api.get(`${base}?sourceId=${sourceId}`);
    assert.equal(bySource.body.data.totalElements, 1);
    assert.equal(bySource.body.data.content[0].jsonBody.source_id, sourceId);
    assert.equal(bySource.body.data.content[0].jsonBody.source_type, 'ASSESSMENT');
    const page = await t.api.get(`${base}?size=2&page=1`);
    assert.equal(page.body.data.totalElements, 3);
    assert.equal(page.body.data.content.length, 1);
    assertValidation(await t.api.get(`${base}?sourceId=nope`));
  });

  test('bad input is 400 and writes nothing', async () => {
    const { t, base } = await setup();
    assertValidation(await t.api.post(base, {}), 'body.type');
    assertValidation(await t.api.post(base, { type: 'doc-type-unknown' }), 'body.type');
    assertValidation(await t.api.post(base, { type: 'doc-type-others', files: [{ id: randomUUID() }] }));
    const created = await createSummary(t.api, base);
    assertValidation(await t.api.put(`${base}/${created.id}`, { type: 'nope' }), 'body.type');
    assertValidation(await t.api.put(`${base}/${created.id}`, { files: [] }));
    assert.equal((await t.api.get(base)).body.data.totalElements, 1);
  });

  test('401 without a token, 403 without the permission, 404 for a missing summary or patient', async () => {
    const { t, base } = await setup();
    const created = await createSummary(t.api, base);
    assertCode(await t.anonymous.get(base), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['DOCUMENT_READ']);
    assert.equal((await reader.get(`${base}/${created.id}`)).status, 200);
    assertCode(await reader.post(base, { type: 'doc-type-others' }), 403, 'ACCESS_DENIED');
    assertCode(await reader.delete(`${base}/${created.id}`), 403, 'ACCESS_DENIED');
    const none = await t.apiWith(['PATIENT_READ']);
    assertCode(await none.get(base), 403, 'ACCESS_DENIED');
    const missing = await t.api.get(`${base}/${randomUUID()}`);
    assertCode(missing, 404, 'DT_RECORD_NOT_FOUND');
    assert.equal(missing.body[0].details.cdtName, '_document_summary');
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/document-summary`), 404, 'PATIENT_NOT_FOUND');
  });

  test("a tenant never sees or changes another tenant's summaries", async () => {
    const a = await setup();
    const b = await setup();
    const created = await createSummary(a.t.api, a.base);
    const foreign = `${b.t.base}/patients/${a.patientId}/document-summary`;
    assertCode(await b.t.api.get(`${foreign}/${created.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await b.t.api.get(`${b.base}/${created.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await b.t.api.delete(`${b.base}/${created.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assert.equal((await a.t.api.get(`${a.base}/${created.id}`)).status, 200);
  });
});

describe('document files', () => {
  test('upload answers 201 with entries; the summary lists them; download streams them with Range', async () => {
    const { t, patientId, base } = await setup();
    const summary = await createSummary(t.api, base);
    const png = sampleFile('png', 5000);
    const pdf = sampleFile('pdf', 300);
    const response = await upload(t.api, `${base}/${summary.id}/files`, [
      { name: 'scan.png', content: png },
      { name: 'Letter.PDF', content: pdf },
    ]);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.length, 2);
    const [first, second] = response.body;
    assert.deepEqual(Object.keys(first), ['id', 'size', 'storageKey', 'contentType', 'originalName']);
    assert.equal(first.size, png.length);
    assert.equal(first.contentType, 'image/png');
    assert.equal(first.originalName, 'scan.png');
    assert.equal(first.storageKey, `${t.tenant.name}/${t.instance.name}/patients/${patientId}/documents/${first.id}`);
    assert.equal(second.contentType, 'application/pdf');

    const read = await t.api.get(`${base}/${summary.id}`);
    assert.deepEqual(read.body.jsonBody.files, response.body);

    const url = `${base}/${summary.id}/files/${first.id}`;
    const auth = { authorization: `Bearer ${t.api.token}` };
    const whole = await download(url, auth);
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['content-type'], 'image/png');
    assert.equal(Number(whole.headers['content-length']), png.length);
    assert.equal(whole.headers['accept-ranges'], 'bytes');
    assert.ok(whole.rawPayload.equals(png));

    const head = await download(url, { ...auth, range: 'bytes=0-7' });
    assert.equal(head.statusCode, 206);
    assert.equal(head.headers['content-range'], `bytes 0-7/${png.length}`);
    assert.ok(head.rawPayload.equals(png.subarray(0, 8)));
    const tail = await download(url, { ...auth, range: 'bytes=-10' });
    assert.equal(tail.statusCode, 206);
    assert.ok(tail.rawPayload.equals(png.subarray(png.length - 10)));
    const open = await download(url, { ...auth, range: `bytes=${png.length - 1}-` });
    assert.equal(open.statusCode, 206);
    assert.equal(open.rawPayload.length, 1);
    const beyond = await download(url, { ...auth, range: `bytes=${png.length}-` });
    assert.equal(beyond.statusCode, 416);
    assert.equal(beyond.headers['content-range'], `bytes */${png.length}`);
    assert.equal(JSON.parse(beyond.body)[0].errorCode, 'RANGE_NOT_SATISFIABLE');
    const clamped = await download(url, { ...auth, range: 'bytes=10-999999999' });
    assert.equal(clamped.statusCode, 206);
    assert.equal(clamped.rawPayload.length, png.length - 10);
    const malformed = await download(url, { ...auth, range: 'lines=1-2' });
    assert.equal(malformed.statusCode, 200);
    assert.equal(malformed.rawPayload.length, png.length);
  });

  test('only jpg, jpeg, png and pdf, judged by content: a wrong type or content is 400 and stores nothing', async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base);
    const url = `${base}/${summary.id}/files`;
    assertCode(await upload(t.api, url, [{ name: 'notes.txt', content: Buffer.from('hello') }]), 400, 'FILE_TYPE_NOT_ALLOWED');
    assertCode(await upload(t.api, url, [{ name: 'noextension', content: sampleFile('pdf') }]), 400, 'FILE_TYPE_NOT_ALLOWED');
    assertCode(await upload(t.api, url, [{ name: 'photo.png', content: sampleFile('pdf') }]), 400, 'FILE_CONTENT_MISMATCH');
    assertCode(
      await upload(t.api, url, [{ name: 'script.pdf', content: Buffer.from('<script>alert(1)</script>') }]),
      400,
      'FILE_CONTENT_MISMATCH',
    );
    // A good file before a bad one: the good one is removed too.
    assertCode(
      await upload(t.api, url, [
        { name: 'ok.jpeg', content: sampleFile('jpeg') },
        { name: 'bad.jpg', content: sampleFile('png') },
      ]),
      400,
      'FILE_CONTENT_MISMATCH',
    );
    assertCode(await upload(t.api, url, [{ name: 'a.pdf', content: sampleFile('pdf'), field: 'attachment' }]), 400, 'NO_FILES');
    assertCode(await t.api.post(url, { files: [] }), 400, 'NO_FILES');
    assert.equal((await t.api.get(`${base}/${summary.id}`)).body.jsonBody.files, null);
    assert.deepEqual(
      filesUnder(filesRoot).filter((file) => file.includes(t.tenant.name)),
      [],
    );
  });

  test('a file of 25 MB is taken; one byte more is 400 FILE_TOO_LARGE; 11 files are 400 TOO_MANY_FILES', async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base);
    const url = `${base}/${summary.id}/files`;
    const limit = 25 * 1024 * 1024;
    const atLimit = await upload(t.api, url, [{ name: 'big.pdf', content: sampleFile('pdf', limit) }]);
    assert.equal(atLimit.status, 201, atLimit.text);
    assert.equal(atLimit.body[0].size, limit);
    assertCode(await upload(t.api, url, [{ name: 'big.pdf', content: sampleFile('pdf', limit + 1) }]), 400, 'FILE_TOO_LARGE');
    const eleven = Array.from({ length: 11 }, (_, index) => ({ name: `${index}.png`, content: sampleFile('png') }));
    assertCode(await upload(t.api, url, eleven), 400, 'TOO_MANY_FILES');
    assert.equal((await upload(t.api, url, eleven.slice(0, 10))).status, 201);
    const stored = filesUnder(filesRoot).filter((file) => file.startsWith(t.tenant.name));
    assert.equal(stored.length, 11, 'the 25 MB file and the ten; nothing of the refused uploads');
    assert.ok(stored.every((file) => !file.endsWith('.part')));
  });

  test('PUT keeps the listed files and deletes the others with their bytes; a foreign file id is 400', async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base);
    const other = await createSummary(t.api, base);
    const entries = (
      await upload(t.api, `${base}/${summary.id}/files`, [
        { name: 'a.png', content: sampleFile('png') },
        { name: 'b.pdf', content: sampleFile('pdf') },
      ])
    ).body;
    const foreign = (await upload(t.api, `${base}/${other.id}/files`, [{ name: 'c.png', content: sampleFile('png') }])).body;
    assertValidation(await t.api.put(`${base}/${summary.id}`, { type: 'doc-type-others', files: foreign }), 'body.files.0.id');

    const kept = await t.api.put(`${base}/${summary.id}`, { type: 'doc-type-others', files: [entries[1]] });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.jsonBody.files, [entries[1]]);
    await app.jobs.drain();
    const stored = filesUnder(filesRoot).filter((file) => file.startsWith(t.tenant.name));
    assert.ok(!stored.some((file) => file.endsWith(entries[0].id)), 'the removed file is gone from the store');
    assert.ok(stored.some((file) => file.endsWith(entries[1].id)));
    assertCode(
      await download(`${base}/${summary.id}/files/${entries[0].id}`, { authorization: `Bearer ${t.api.token}` }).then(asResponse),
      404,
      'FILE_NOT_FOUND',
    );

    // Leaving `files` out keeps them; null removes them all.
    assert.equal((await t.api.put(`${base}/${summary.id}`, { type: 'doc-type-others' })).body.jsonBody.files.length, 1);
    assert.equal((await t.api.put(`${base}/${summary.id}`, { type: 'doc-type-others', files: null })).body.jsonBody.files, null);
  });

  test("deleting the summary, or the patient, removes its files' bytes", async () => {
    const { t, patientId, base } = await setup();
    const summary = await createSummary(t.api, base);
    await upload(t.api, `${base}/${summary.id}/files`, [{ name: 'a.png', content: sampleFile('png') }]);
    const second = await createSummary(t.api, base);
    await upload(t.api, `${base}/${second.id}/files`, [{ name: 'b.png', content: sampleFile('png') }]);
    const mine = () => filesUnder(filesRoot).filter((file) => file.startsWith(t.tenant.name));
    assert.equal(mine().length, 2);
    assert.equal((await t.api.delete(`${base}/${summary.id}`)).status, 200);
    await app.jobs.drain();
    assert.equal(mine().length, 1);
    assert.equal((await t.api.delete(`${t.base}/patients/${patientId}`)).status, 200);
    await app.jobs.drain();
    assert.equal(mine().length, 0);
  });

  test('a database failure after the upload leaves no file behind', async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base);
    const db = app.services.db;
    const { sql } = await import('kysely');
    // A real failure of the write that records the files, for this tenant only: a check that its
    // rows break (no trigger: Citus refuses them on distributed tables; one statement a call).
    const check = sql.id(`fail_files_${t.tenant.name}`);
    await sql`ALTER TABLE files ADD CONSTRAINT ${check} CHECK (tenant_id <> ${sql.lit(t.tenant.id)}::uuid) NOT VALID`.execute(db);
    try {
      const response = await upload(t.api, `${base}/${summary.id}/files`, [
        { name: 'a.png', content: sampleFile('png') },
        { name: 'b.pdf', content: sampleFile('pdf') },
      ]);
      assert.equal(response.status, 500);
    } finally {
      await sql`ALTER TABLE files DROP CONSTRAINT ${check}`.execute(db);
    }
    assert.deepEqual(
      filesUnder(filesRoot).filter((file) => file.startsWith(t.tenant.name)),
      [],
    );
    assert.equal((await t.api.get(`${base}/${summary.id}`)).body.jsonBody.files, null);
  });

  test('upload and download need a token, the permission, and the summary of that patient in that tenant', async () => {
    const a = await setup();
    const b = await setup();
    const summary = await createSummary(a.t.api, a.base);
    const [entry] = (await upload(a.t.api, `${a.base}/${summary.id}/files`, [{ name: 'a.png', content: sampleFile('png') }]))
      .body;
    const url = `${a.base}/${summary.id}/files`;
    assertCode(
      await upload(a.t.anonymous, url, [{ name: 'a.png', content: sampleFile('png') }]),
      401,
      'NOT_VALID_JSON_WEB_TOKEN',
    );
    const reader = await a.t.apiWith(['DOCUMENT_READ']);
    assertCode(await upload(reader, url, [{ name: 'a.png', content: sampleFile('png') }]), 403, 'ACCESS_DENIED');
    assertCode(
      await upload(a.t.api, `${a.base}/${randomUUID()}/files`, [{ name: 'a.png', content: sampleFile('png') }]),
      404,
      'DT_RECORD_NOT_FOUND',
    );
    const fileUrl = `${url}/${entry.id}`;
    assert.equal((await download(fileUrl, { authorization: `Bearer ${reader.token}` })).statusCode, 200);
    assert.equal((await download(fileUrl)).statusCode, 401);
    // Another summary of the same patient, another patient, another tenant: the file is not there.
    const other = await createSummary(a.t.api, a.base);
    const auth = { authorization: `Bearer ${a.t.api.token}` };
    assertCode(asResponse(await download(`${a.base}/${other.id}/files/${entry.id}`, auth)), 404, 'FILE_NOT_FOUND');
    const otherPatient = (await createPatient(a.t)).id;
    assertCode(
      asResponse(await download(`${a.t.base}/patients/${otherPatient}/document-summary/${summary.id}/files/${entry.id}`, auth)),
      404,
      'DT_RECORD_NOT_FOUND',
    );
    const bSummary = await createSummary(b.t.api, b.base);
    assertCode(
      asResponse(await download(`${b.base}/${bSummary.id}/files/${entry.id}`, { authorization: `Bearer ${b.t.api.token}` })),
      404,
      'FILE_NOT_FOUND',
    );
    assertCode(await b.t.api.get(`${b.t.base}/files/${entry.id}`), 404, 'FILE_NOT_FOUND');
  });
});

describe('signed links and GET /files/{fileId}', () => {
  test('signedUrls=true links each file for 5 minutes without a token; a changed or old link is 403', async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base);
    const png = sampleFile('png', 2000);
    await upload(t.api, `${base}/${summary.id}/files`, [{ name: 'a.png', content: png }]);
    const read = await t.api.get(`${base}/${summary.id}?signedUrls=true`);
    const [file] = read.body.jsonBody.files;
    assert.equal(file.thumbnailUrl, null);
    const link = new URL(file.url);
    const path = `${link.pathname}${link.search}`;
    const fetched = await download(path);
    assert.equal(fetched.statusCode, 200);
    assert.ok(fetched.rawPayload.equals(png));
    assert.equal((await download(path, { range: 'bytes=0-3' })).statusCode, 206);

    const tampered = new URL(file.url);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 600));
    assertCode(asResponse(await download(`${tampered.pathname}${tampered.search}`)), 403, 'LINK_INVALID');
    const otherFile = `${link.pathname.replace(file.id, randomUUID())}${link.search}`;
    assertCode(asResponse(await download(otherFile)), 403, 'LINK_INVALID');

    const issued = now;
    now = new Date(issued.getTime() + 5 * 60 * 1000 + 1000);
    try {
      assertCode(asResponse(await download(path)), 403, 'LINK_EXPIRED');
    } finally {
      now = new Date();
    }
    assert.equal((await t.api.get(`${base}/${summary.id}`)).body.jsonBody.files[0].url, undefined);

    // The list links its page's files the same way, on request only.
    const [listed] = (await t.api.get(`${base}?signedUrls=true`)).body.data.content;
    const listedLink = new URL(listed.jsonBody.files[0].url);
    assert.equal((await download(`${listedLink.pathname}${listedLink.search}`)).statusCode, 200);
    assert.equal((await t.api.get(base)).body.data.content[0].jsonBody.files[0].url, undefined);
  });

  test("GET /files/{fileId} answers the entry with a fresh link; it needs FILE_READ and the owner's read permission", async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base);
    const [entry] = (await upload(t.api, `${base}/${summary.id}/files`, [{ name: 'a.pdf', content: sampleFile('pdf') }])).body;
    const read = await t.api.get(`${t.base}/files/${entry.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(Object.keys(read.body), ['id', 'size', 'storageKey', 'contentType', 'originalName', 'url', 'thumbnailUrl']);
    const link = new URL(read.body.url);
    assert.equal((await download(`${link.pathname}${link.search}`)).statusCode, 200);
    assertCode(await t.anonymous.get(`${t.base}/files/${entry.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['DOCUMENT_READ'])).get(`${t.base}/files/${entry.id}`), 403, 'ACCESS_DENIED');
    assertCode(await (await t.apiWith(['FILE_READ'])).get(`${t.base}/files/${entry.id}`), 404, 'FILE_NOT_FOUND');
    assert.equal((await (await t.apiWith(['FILE_READ', 'DOCUMENT_READ'])).get(`${t.base}/files/${entry.id}`)).status, 200);
    assertCode(await t.api.get(`${t.base}/files/${randomUUID()}`), 404, 'FILE_NOT_FOUND');
    assertValidation(await t.api.get(`${t.base}/files/not-a-uuid`));
  });
});

describe('document type records', () => {
  test('GET, POST, PUT and DELETE of the one record of the summary type', async () => {
    const { t, patientId, base } = await setup();
    const summary = await createSummary(t.api, base, { type: 'doc-type-lab' });
    const url = `${base}/${summary.id}/doc-type-lab`;
    assertCode(await t.api.get(url), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await t.api.put(url, { labName: 'Quest' }), 404, 'DT_RECORD_NOT_FOUND');

    const created = await t.api.post(url, { labName: 'Quest', drawnOn: '2026-11-01', ignored: 1 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.cdtName, 'doc-type-lab');
    assert.equal(created.body.patientId, patientId);
    assert.equal(created.body.jsonBody.labName, 'Quest');
    assert.equal(created.body.jsonBody.source_type, 'DOCUMENT_SUMMARY');
    assert.equal(created.body.jsonBody.source_name, '_document_summary');
    assert.equal(created.body.jsonBody.source_id, summary.id);
    assert.equal(created.body.jsonBody.ignored, undefined);
    assertCode(await t.api.post(url, { labName: 'Again' }), 409, 'DUPLICATE_VALUE');

    const read = await t.api.get(url);
    assert.deepEqual(read.body, created.body);
    const replaced = await t.api.put(url, { labName: 'LabCorp' });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.jsonBody.labName, 'LabCorp');
    assert.equal(replaced.body.jsonBody.drawnOn, null);
    assertValidation(await t.api.put(url, {}), 'body.labName');

    // The type cannot change under its record.
    assertValidation(await t.api.put(`${base}/${summary.id}`, { type: 'doc-type-others' }), 'body.type');
    const removed = await t.api.delete(url);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assertCode(await t.api.get(url), 404, 'DT_RECORD_NOT_FOUND');
  });

  test('bad input is 400; an unknown type 404; another type than the summary 400; the summary deletes its record', async () => {
    const { t, base } = await setup();
    const summary = await createSummary(t.api, base, { type: 'doc-type-lab' });
    assertValidation(await t.api.post(`${base}/${summary.id}/doc-type-lab`, { drawnOn: 'yesterday' }));
    assertCode(await t.api.get(`${base}/${summary.id}/doc-type-none`), 404, 'CDT_NOT_FOUND');
    assertValidation(await t.api.post(`${base}/${summary.id}/doc-type-others`, {}), 'params.docType');
    assertCode(await t.api.post(`${base}/${randomUUID()}/doc-type-lab`, { labName: 'x' }), 404, 'DT_RECORD_NOT_FOUND');
    assert.equal((await t.api.post(`${base}/${summary.id}/doc-type-lab`, { labName: 'x' })).status, 201);
    assert.equal((await t.api.delete(`${base}/${summary.id}`)).status, 200);
    assertCode(await t.api.get(`${base}/${summary.id}/doc-type-lab`), 404, 'DT_RECORD_NOT_FOUND');
  });

  test('the defaults exist without a formation entry; permissions and tenants hold', async () => {
    const a = await setup();
    const b = await setup();
    const summary = await createSummary(a.t.api, a.base, { type: 'doc-type-esign' });
    const url = `${a.base}/${summary.id}/doc-type-esign`;
    const created = await a.t.api.post(url, {});
    assert.equal(created.status, 201, created.text);
    assertCode(await a.t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await a.t.apiWith(['DOCUMENT_READ'])).delete(url), 403, 'ACCESS_DENIED');
    assertCode(await b.t.api.get(`${b.base}/${summary.id}/doc-type-esign`), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await b.t.api.delete(`${b.base}/${summary.id}/doc-type-esign`), 404, 'DT_RECORD_NOT_FOUND');
    assert.equal((await a.t.api.get(url)).status, 200);
  });
});

function asResponse(response: Awaited<ReturnType<typeof download>>) {
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {}
  return { status: response.statusCode, body, headers: response.headers, text: response.body };
}
