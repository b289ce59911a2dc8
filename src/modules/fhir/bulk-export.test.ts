import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import type { BlobStore, ByteRange } from '../../files/blob-store.ts';
import { LocalBlobStore } from '../../files/local-store.ts';
import { claimJobs } from '../../jobs/queue.ts';
import { TestClock } from '../../test/clock.ts';
import { assertOutcome, createUser, errorsOf, fhirBase, usCoreErrors } from '../../test/fhir.ts';
import { Api, createPatient, createTestTenant, type Response, startApp, type TestTenant } from '../../test/harness.ts';
import { RUN_EXPORT } from './bulk/job.ts';

/**
 * FHIR Bulk Data 2.0 `$export` (docs/fhir-bulk-export.md) over HTTP: kick-off, status, manifest,
 * files read with the token and checked line by line with @medplum/core's validator, the
 * parameters, cancel, permissions, the access log, a run that dies and resumes, and expiry. Files
 * hold 2 resources here, so every type spreads over several.
 */

/** The blob store, on the filesystem, that can make the next put fail once its blob is stored (a node dying before its row). */
class DyingBlobs implements BlobStore {
  readonly driver = 'local' as const;
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bulk-'));
  private readonly local = new LocalBlobStore(this.root);
  /** Puts to let through before one fails; undefined: none fails. */
  dieAfter: number | undefined;

  async put(key: string, body: Readable): Promise<void> {
    await this.local.put(key, body);
    if (this.dieAfter !== undefined && this.dieAfter-- === 0) {
      this.dieAfter = undefined;
      throw new Error('the node died');
    }
  }
  get(key: string, range?: ByteRange): Promise<Readable> {
    return this.local.get(key, range);
  }
  size(key: string): Promise<number | undefined> {
    return this.local.size(key);
  }
  remove(keys: readonly string[]): Promise<void> {
    return this.local.remove(keys);
  }
  /** The blobs stored for an export. */
  exportBlobs(t: TestTenant, exportId: string): string[] {
    const folder = path.join(this.root, t.tenant.id, t.instance.id, 'fhir-exports', exportId);
    return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
  }
}

const blobs = new DyingBlobs();
after(() => fs.rmSync(blobs.root, { recursive: true, force: true }));
const clock = new TestClock('2026-03-02T09:00:00.000Z');
// No settle time: on PostgreSQL too, an export's transactionTime is its kick-off's instant (the clock stands still).
const app = await startApp({}, { clock, blobs, env: { CAIRN_FHIR_EXPORT_FILE_RESOURCES: '2', CAIRN_EXPORT_SETTLE_MS: '0' } });

const ASYNC: Record<string, string> = { prefer: 'respond-async', accept: 'application/fhir+json' };

function kickOff(t: TestTenant, query = '', { api = t.api, level = '', headers = ASYNC } = {}) {
  return api.request('GET', `${fhirBase(t)}${level}/$export${query ? `?${query}` : ''}`, undefined, headers);
}

/** The path of an absolute URL the API gave (Content-Location, a manifest's file). */
const pathOf = (url: unknown) => new URL(String(url)).pathname;

/** Kicks off (202), runs the export's job to its end and answers its manifest. */
async function exported(t: TestTenant, query = '', options: Parameters<typeof kickOff>[2] = {}) {
  const started = await kickOff(t, query, options);
  assert.equal(started.status, 202, started.text);
  await app.jobs.drain();
  const status = await (options.api ?? t.api).get(pathOf(started.headers['content-location']));
  assert.equal(status.status, 200, status.text);
  return { status: pathOf(started.headers['content-location']), manifest: status.body as Manifest };
}

interface Manifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: { type: string; url: string; count: number }[];
  error: unknown[];
}

/** A file's resources, each line one, checked against base R4 (and US Core Patient). */
async function resourcesOf(api: Api, file: Manifest['output'][number]): Promise<any[]> {
  const response = await api.get(pathOf(file.url));
  assert.equal(response.status, 200, response.text);
  assert.match(String(response.headers['content-type']), /^application\/fhir\+ndjson/);
  assert.ok(response.text.endsWith('\n'), 'every line ends with a newline');
  const lines = response.text.slice(0, -1).split('\n');
  const resources = lines.map((line) => JSON.parse(line));
  for (const resource of resources) {
    assert.equal(resource.resourceType, file.type);
    assert.deepEqual(errorsOf(resource), [], `${file.type}/${resource.id}`);
    if (file.type === 'Patient') assert.deepEqual(usCoreErrors(resource, 'us-core-patient'), []);
  }
  assert.equal(resources.length, file.count, "the manifest's count");
  return resources;
}

/** Every resource of the export, by type: ids sorted. */
async function idsByType(api: Api, manifest: Manifest): Promise<Record<string, string[]>> {
  const byType: Record<string, string[]> = {};
  for (const file of manifest.output) {
    const ids = byType[file.type] ?? [];
    for (const resource of await resourcesOf(api, file)) ids.push(resource.id);
    byType[file.type] = ids;
  }
  for (const ids of Object.values(byType)) ids.sort();
  return byType;
}

async function createTask(t: TestTenant, assignee: string, patientId?: string) {
  const body = {
    name: 'Call',
    status: 'TODO',
    priority: 'MEDIUM',
    assignee: { id: assignee },
    ...(patientId ? { patient: { id: patientId } } : {}),
  };
  const response = await t.api.post(`${t.base}/tasks`, body);
  assert.equal(response.status, 201, response.text);
  return response.body.id as string;
}

async function createEvent(t: TestTenant, host: string, patientId?: string) {
  const response = await t.api.post(`${t.base}/calendar/events`, {
    eventTitle: 'Check-in',
    eventType: 'APPOINTMENT',
    startDateTime: '2026-07-01T16:00:00Z',
    endDateTime: '2026-07-01T17:00:00Z',
    hostId: host,
    participants: patientId ? [{ participantId: patientId, participantRole: 'patient' }] : [],
  });
  assert.equal(response.status, 201, response.text);
  return response.body.id as string;
}

/** A tenant with patients, a member of the care team, tasks and appointments with and without a patient. */
async function seeded() {
  const t = await createTestTenant(app);
  const patients = [];
  for (const name of ['Ada', 'Bo', 'Cy', 'Di', 'Ed'])
    patients.push((await createPatient(t, { firstName: name, lastName: 'Quill' })).id);
  const member = (
    await createUser(t, { firstName: 'Nia', lastName: 'Nurse', roles: [{ permissionName: 'admin', instanceName: 'sandbox' }] })
  ).id;
  const tasks = [await createTask(t, member, patients[0]), await createTask(t, member, patients[1]), await createTask(t, member)];
  const events = [await createEvent(t, member, patients[2]), await createEvent(t, member)];
  return { t, patients: patients.sort(), member, tasks, events };
}

const sorted = (ids: string[]) => [...ids].sort();

describe('FHIR $export', () => {
  test('kick-off 202, status 202 with X-Progress, a run that dies resumes after its last file, then the manifest and every file', async () => {
    const { t, patients, member, tasks, events } = await seeded();
    const started = await kickOff(t);
    assert.equal(started.status, 202, started.text);
    assert.deepEqual(errorsOf(started.body), []);
    const status = pathOf(started.headers['content-location']);
    assert.match(status, /\/fhir\/R4\/\$export-status\/[0-9a-f-]{36}$/);
    // Written after the kick-off: after its transactionTime, so left for the next export.
    clock.advance(1);
    await createPatient(t, { firstName: 'Late', lastName: 'Comer' });

    const queued = await t.api.get(status);
    assert.equal(queued.status, 202);
    assert.equal(queued.text, '');
    assert.equal(queued.headers['retry-after'], '5');
    assert.match(String(queued.headers['x-progress']), /^0 resources in 0 files; reading \w+ \(1 of \d+\)$/);

    // The second file's blob is stored, then its node dies before recording it: the job is retried later.
    blobs.dieAfter = 1;
    await app.jobs.drain();
    const halfway = await t.api.get(status);
    assert.equal(halfway.status, 202);
    assert.match(String(halfway.headers['x-progress']), /^\d+ resources in 1 files; reading \w+ /);

    clock.advance(60_000);
    await app.jobs.drain();
    const done = await t.api.get(status);
    assert.equal(done.status, 200, done.text);
    assert.match(String(done.headers['content-type']), /^application\/json/);
    assert.equal(
      new Date(String(done.headers.expires)).getTime(),
      Math.floor((clock.now().getTime() + 86_400_000) / 1000) * 1000,
    );
    const manifest = done.body as Manifest;
    assert.equal(manifest.requiresAccessToken, true);
    assert.deepEqual(manifest.error, []);
    assert.equal(manifest.transactionTime, '2026-03-02T09:00:00.000Z');
    assert.match(manifest.request, /\/fhir\/R4\/\$export$/);

    const byType = await idsByType(t.api, manifest);
    assert.deepEqual(byType.Patient, patients, 'each patient once, none written after the kick-off');
    assert.deepEqual(byType.Practitioner, [member]);
    assert.deepEqual(byType.Task, sorted(tasks));
    assert.deepEqual(byType.Appointment, sorted(events));
    const patientFiles = manifest.output.filter((file) => file.type === 'Patient');
    assert.deepEqual(
      patientFiles.map((file) => file.count),
      [2, 2, 1],
      'a file holds CAIRN_FHIR_EXPORT_FILE_RESOURCES',
    );
    const exportId = status.split('/').at(-1)!;
    assert.equal(
      blobs.exportBlobs(t, exportId).length,
      manifest.output.length,
      'the blob stored before the death was replaced, not left',
    );

    // The files need the token, and are the tenant's own.
    const file = pathOf(manifest.output[0]!.url);
    const anonymous = await t.anonymous.get(file);
    assertOutcome(anonymous, 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const other = await createTestTenant(app);
    const foreign = file.replace(`/${t.tenant.name}/${t.instance.name}/`, `/${other.tenant.name}/${other.instance.name}/`);
    assertOutcome(await other.api.get(foreign), 404, 'FHIR_EXPORT_FILE_NOT_FOUND');
    assertOutcome(
      await other.api.get(
        status.replace(`/${t.tenant.name}/${t.instance.name}/`, `/${other.tenant.name}/${other.instance.name}/`),
      ),
      404,
      'FHIR_EXPORT_NOT_FOUND',
    );
    assertOutcome(await other.api.get(file), 403, 'TENANT_ACCESS_DENIED');
    // One range of a file, as for Cairn's other files.
    const range = await t.api.request('GET', file, undefined, { range: 'bytes=0-0' });
    assert.equal(range.status, 206);
    assert.equal(range.text, '{');
  });

  test('a job whose node died while running it runs again once its lease has run out', async () => {
    const { t, patients } = await seeded();
    const started = await kickOff(t, '_type=Patient');
    const status = pathOf(started.headers['content-location']);
    // A node takes the job, then dies: nobody renews its lease.
    const now = clock.now();
    const [taken] = await claimJobs(app.services.db, {
      kinds: [RUN_EXPORT],
      limit: 1,
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      worker: 'a-node-that-died',
      tenants: [t.tenant.id],
      engine: app.services.dbKind,
    });
    assert.equal(taken?.kind, RUN_EXPORT);
    await app.jobs.drain();
    assert.equal((await t.api.get(status)).status, 202, 'the job is still the dead node’s until its lease ends');
    clock.advance(60_000);
    await app.jobs.drain();
    const done = await t.api.get(status);
    assert.equal(done.status, 200, done.text);
    assert.deepEqual((await idsByType(t.api, done.body)).Patient, patients);
  });

  test('_type and _since narrow; Patient/$export holds the patients and what belongs to them', async () => {
    const { t, patients, member, tasks, events } = await seeded();
    clock.advance(60_000);
    const since = clock.now().toISOString();
    clock.advance(60_000);
    const late = (await createPatient(t, { firstName: 'Fay', lastName: 'Later' })).id;
    const lateTask = await createTask(t, member, late);

    const patientsOnly = await exported(t, '_type=Patient');
    assert.deepEqual(Object.keys(await idsByType(t.api, patientsOnly.manifest)), ['Patient']);
    assert.deepEqual(
      await idsByType(t.api, (await exported(t, `_type=Task&_type=Patient&_since=${encodeURIComponent(since)}`)).manifest),
      { Patient: [late], Task: [lateTask] },
      'repeated _type is a comma list; only what was updated after _since',
    );

    const level = await exported(t, '', { level: '/Patient' });
    assert.match(level.manifest.request, /\/fhir\/R4\/Patient\/\$export$/);
    const byType = await idsByType(t.api, level.manifest);
    assert.equal(byType.Practitioner, undefined, 'a practitioner belongs to no patient');
    assert.deepEqual(byType.Patient, sorted([...patients, late]));
    assert.deepEqual(byType.Task, sorted([tasks[0]!, tasks[1]!, lateTask]), 'not the task without a patient');
    assert.deepEqual(byType.Appointment, [events[0]], 'not the appointment without a patient');
    const outside = await kickOff(t, '_type=Practitioner', { level: '/Patient' });
    assertOutcome(outside, 400, 'VALIDATION_ERROR');
    assert.match(outside.body.issue[0].diagnostics, /Patient compartment/);
  });

  test('bad _type, _since or _outputFormat, no Prefer: respond-async, an unserved parameter: 400 OperationOutcome', async () => {
    const t = await createTestTenant(app);
    const bad: [string, Record<string, string>, RegExp][] = [
      ['_type=Patient,Nope', ASYNC, /_type: Nope/],
      ['_since=yesterday', ASYNC, /_since/],
      ['_since=2026-02-31T00:00:00Z', ASYNC, /_since/],
      ['_since=2026-02-01', ASYNC, /_since/],
      ['_outputFormat=text/csv', ASYNC, /_outputFormat/],
      ['_elements=id', ASYNC, /_elements: is not supported/],
      ['_typeFilter=Patient%3Fgender%3Dmale', ASYNC, /_typeFilter/],
      ['', { accept: 'application/fhir+json' }, /prefer: must be respond-async/],
      ['', { prefer: 'handling=lenient' }, /prefer/],
      ['', { prefer: 'respond-async', accept: 'application/xml' }, /accept/],
    ];
    for (const [query, headers, diagnostics] of bad) {
      const response = await kickOff(t, query, { headers });
      assertOutcome(response, 400, 'VALIDATION_ERROR');
      assert.equal(response.body.issue[0].code, 'invalid');
      assert.match(response.body.issue[0].diagnostics, diagnostics, query);
      assert.deepEqual(errorsOf(response.body), []);
    }
    // The three names of NDJSON, `+` sent as it is (a space once decoded) or encoded; Prefer among others.
    for (const format of ['ndjson', 'application/ndjson', 'application/fhir+ndjson']) {
      const started = await kickOff(t, `_outputFormat=${format}&_since=2026-01-01T00:00:00.000%2B01:00`, {
        headers: { prefer: 'handling=strict, respond-async' },
      });
      assert.equal(started.status, 202, `${format}: ${started.text}`);
    }
    // CAIRN_FHIR_EXPORT_MAX_RUNNING (3) in progress: one more waits.
    const busy = await kickOff(t);
    assertOutcome(busy, 429, 'TOO_MANY_REQUESTS');
    assert.equal(busy.headers['retry-after'], '60');
    await app.jobs.drain();
    assert.equal((await kickOff(t, '_outputFormat=application%2Ffhir%2Bndjson')).status, 202);
    await app.jobs.drain();
  });

  test('DELETE cancels: 202, then the status and files are 404 and the blobs are gone; also while in progress', async () => {
    const { t } = await seeded();
    const { status, manifest } = await exported(t);
    const exportId = status.split('/').at(-1)!;
    assert.equal(blobs.exportBlobs(t, exportId).length, manifest.output.length);
    const cancelled = await t.api.delete(status);
    assert.equal(cancelled.status, 202, cancelled.text);
    assert.deepEqual(errorsOf(cancelled.body), []);
    assertOutcome(await t.api.get(status), 404, 'FHIR_EXPORT_NOT_FOUND');
    assertOutcome(await t.api.get(pathOf(manifest.output[0]!.url)), 404, 'FHIR_EXPORT_FILE_NOT_FOUND');
    assertOutcome(await t.api.delete(status), 404, 'FHIR_EXPORT_NOT_FOUND');
    await app.jobs.drain();
    assert.deepEqual(blobs.exportBlobs(t, exportId), [], "the files' blobs are removed");

    const running = await kickOff(t);
    const runningStatus = pathOf(running.headers['content-location']);
    assert.equal((await t.api.delete(runningStatus)).status, 202);
    await app.jobs.drain();
    assertOutcome(await t.api.get(runningStatus), 404, 'FHIR_EXPORT_NOT_FOUND');
    assert.deepEqual(blobs.exportBlobs(t, runningStatus.split('/').at(-1)!), [], 'its job wrote nothing');
  });

  test('permissions: FHIR_EXPORT, and each type its own; unreadable types are left out unless named (403)', async () => {
    const { t, patients } = await seeded();
    const patientReader = await t.apiWith(['FHIR_EXPORT', 'PATIENT_READ']);
    const { manifest } = await exported(t, '', { api: patientReader });
    const readable = await idsByType(patientReader, manifest);
    assert.deepEqual(readable.Patient, patients);
    for (const type of ['Task', 'Appointment', 'Practitioner'])
      assert.equal(readable[type], undefined, `${type}: not its to read`);
    const named = await kickOff(t, '_type=Patient,Task', { api: patientReader });
    assertOutcome(named, 403, 'ACCESS_DENIED');
    assert.match(named.body.issue[0].diagnostics, /TASK_READ/);
    assertOutcome(await kickOff(t, '', { api: await t.apiWith(['PATIENT_READ']) }), 403, 'ACCESS_DENIED');
    assertOutcome(await kickOff(t, '', { api: await t.apiWith(['FHIR_EXPORT']) }), 403, 'ACCESS_DENIED');

    // Following an export needs every permission it did; a file, its type's.
    const everything = await exported(t);
    assertOutcome(await patientReader.get(everything.status), 403, 'ACCESS_DENIED');
    assertOutcome(await patientReader.delete(everything.status), 403, 'ACCESS_DENIED');
    const taskFile = everything.manifest.output.find((file) => file.type === 'Task')!;
    assertOutcome(await patientReader.get(pathOf(taskFile.url)), 404, 'FHIR_EXPORT_FILE_NOT_FOUND');
    const patientFile = everything.manifest.output.find((file) => file.type === 'Patient')!;
    assert.equal((await patientReader.get(pathOf(patientFile.url))).status, 200);
  });

  test('a download is in the access log with the patients its file holds', async () => {
    const { t } = await seeded();
    const { manifest } = await exported(t, '_type=Patient,Task');
    const seen: string[][] = [];
    for (const file of manifest.output) {
      const resources = await resourcesOf(t.api, file);
      seen.push(
        sorted(
          resources
            .map((resource) => (file.type === 'Patient' ? resource.id : resource.for?.reference?.slice(8)))
            .filter(Boolean),
        ),
      );
    }
    const log: Response<any> = await t.api.get(`${t.admin}/access-log?size=100`);
    assert.equal(log.status, 200, log.text);
    const downloads = (log.body.data as any[]).filter(
      (record) => record.operation === 'GET /:tenantName/:instanceName/fhir/R4/$export-file/:exportFileId',
    );
    const asText = (entries: unknown[][]) => entries.map((entry) => JSON.stringify(entry)).sort();
    assert.deepEqual(
      asText(downloads.map((record) => [record.resourceType, sorted(record.patientIds), record.recordIds])),
      asText(
        manifest.output
          .map((file, index) => ['FHIR_EXPORT_FILE', seen[index]!, [pathOf(file.url).split('/').at(-1)]])
          .filter(([, patients]) => patients!.length > 0),
      ),
      'a file of no patient (the task without one) discloses nothing',
    );
  });

  test('an export and its files go once CAIRN_FHIR_EXPORT_RETENTION_HOURS have passed since it completed', async () => {
    const { t } = await seeded();
    const { status } = await exported(t, '_type=Patient');
    const exportId = status.split('/').at(-1)!;
    clock.advance(24 * 60 * 60_000 - 1);
    await app.jobs.drain();
    // A day later the first token has expired.
    const api = new Api(app.server, (await t.clientWithRole('admin')).token);
    assert.equal((await api.get(status)).status, 200, 'kept until then');
    clock.advance(1);
    await app.jobs.drain();
    assertOutcome(await api.get(status), 404, 'FHIR_EXPORT_NOT_FOUND');
    assert.deepEqual(blobs.exportBlobs(t, exportId), []);
  });
});
