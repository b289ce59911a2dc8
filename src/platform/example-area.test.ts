import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { type Static, Type } from 'typebox';
import { areas } from '../areas.ts';
import { settingsOf, settingsSection } from '../config.ts';
import type { AuditActionCatalog } from '../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../events/outbox.ts';
import { fileEntry } from '../files/files.ts';
import { MB } from '../files/rules.ts';
import type { FormationSection } from '../formation/sections.ts';
import { uniqueNames } from '../formation/validate.ts';
import { contextOf } from '../http/context.ts';
import type { AreaPlugin } from '../http/plugin.ts';
import { needs } from '../http/route-access.ts';
import type { Services } from '../http/services.ts';
import { providerSlot } from '../providers/slot.ts';
import { attachFiles } from '../records/attachments.ts';
import { Records } from '../records/handle.ts';
import { withPatient } from '../records/patient-scope.ts';
import { systemType } from '../records/types.ts';
import { multipart, sampleFile } from '../test/files.ts';
import { assertCode, createPatient, createTestTenant, startApp, testFormation } from '../test/harness.ts';
import { ApiError, type NamesOf, validationError } from '../wire/errors.ts';
import { PatientParams, Uuid } from '../wire/schemas.ts';
import type { Area } from './area.ts';

/**
 * ARCHITECTURE.md's recipe, proven: an area declared only here, in one `Area` value, with its
 * routes, a file owner, a formation section, a setting, a job kind, an event and an outside
 * service, plugs into the app and works end to end, no central file touched. Its records are CDT
 * records of a system type, so it needs no table (a real area adds its migration).
 */

// What the area adds to the typed catalogs, as a real area's catalog.ts does.
const notePermissions = { NOTE_READ: 'Read notes and their files', NOTE_WRITE: 'Write notes' } as const;
const noteErrors = { NOTE_NOT_FOUND: { status: 404, componentType: 'NOTE', message: 'Note not found' } } as const;
const noteEvents = { NOTE: { description: 'Notes', subtypes: ['NOTE_CREATED', 'NOTE_PAGED'] } } as const satisfies EventCatalog;
const noteActions = {
  NOTE_CREATED: { description: 'A note was written', events: ['NOTE_CREATED'] },
} as const satisfies AuditActionCatalog;
declare module '../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof notePermissions> {}
}
declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof noteErrors> {}
}
declare module '../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof noteActions> {}
}
declare module '../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof noteEvents> {}
}

// Its formation section: the kinds of note an instance allows.
const NoteKind = Type.Object({ name: Type.String({ minLength: 1 }), title: Type.Optional(Type.String()) });
declare module '../formation/schemas.ts' {
  interface FormationSections {
    noteKinds?: Static<typeof NoteKind>[];
  }
}
const noteKinds: FormationSection = {
  key: 'noteKinds',
  route: 'note-kinds',
  schema: Type.Array(NoteKind),
  problems: (formation, add) => uniqueNames(formation.noteKinds ?? [], 'noteKinds', add),
};

// Its setting, and its outside service: a pager, with a sandbox driver that records what it sends.
const noteSettings = settingsSection(
  'notes',
  Type.Object({ CAIRN_NOTE_GREETING: Type.String({ default: 'New note' }) }),
  (e) => ({
    greeting: e.CAIRN_NOTE_GREETING,
  }),
);
interface Pager {
  driver: string;
  sent: string[];
  page(message: string): Promise<void>;
}
function recordingPager(driver: string): Pager {
  const sent: string[] = [];
  return { driver, sent, page: async (message) => void sent.push(message) };
}
const pagerSlot = providerSlot<Pager, Services>(
  'pager',
  {
    sandbox: { description: 'Records pages', options: Type.Object({}), make: () => recordingPager('sandbox') },
    loud: {
      description: 'Pages loudly',
      options: Type.Object({ prefix: Type.String() }),
      make: (options) => ({ ...recordingPager('loud'), page: async () => void 0, prefix: options.prefix }) as Pager,
    },
  },
  settingsSection('notes', Type.Object({ CAIRN_PAGER_PREFIX: Type.String({ default: '' }) }), (e) => ({
    loud: { prefix: e.CAIRN_PAGER_PREFIX },
  })),
);
const pagerOf = async (services: Services, tenantId: string, instanceId: string) =>
  (await services.providers.for(pagerSlot, { tenantId, instanceId })).use;

const note = systemType({
  name: '_note',
  fields: () => [
    { name: 'kind', type: 'text', required: true },
    { name: 'text', type: 'text' },
  ],
});
const NoteParams = Type.Object({ ...PatientParams.properties, noteId: Uuid });

const routes: AreaPlugin = async (app) => {
  app.post(
    '/:tenantName/:instanceName/patients/:patientId/notes',
    {
      config: needs('NOTE_WRITE'),
      schema: { params: PatientParams, body: Type.Object({ kind: Type.String(), text: Type.String() }) },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { kind, text } = request.body;
      if (!((await ctx.formation()).noteKinds ?? []).some((entry) => entry.name === kind)) {
        throw validationError([{ path: 'body.kind', message: `no note kind "${kind}"` }]);
      }
      const notes = await Records.system(ctx, note);
      const { patientId } = request.params;
      const row = await withPatient(ctx, patientId, async (w) => {
        const created = await notes.create(w, { kind, text }, { patientId });
        w.changed({ action: 'NOTE_CREATED', entityType: 'NOTE', entityId: created.id, patientId: created.patient_id });
        w.enqueue({ kind: 'notes.page', payload: { noteId: created.id } });
        return created;
      });
      return reply.code(201).send({ id: row.id });
    },
  );
  app.post(
    '/:tenantName/:instanceName/patients/:patientId/notes/:noteId/files',
    { config: needs('NOTE_WRITE'), schema: { params: NoteParams } },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { patientId, noteId } = request.params;
      const notes = await Records.system(ctx, note);
      if (!(await notes.find(ctx.db, noteId, { patientId }))) throw new ApiError('NOTE_NOT_FOUND', { noteId });
      const keyPrefix = `${ctx.tenant.name}/${ctx.instance.name}/notes/${noteId}`;
      const files = await attachFiles(ctx, request, { kind: 'NOTE', id: noteId, patientId, keyPrefix }, async (_w, rows) =>
        rows.map(fileEntry),
      );
      return reply.code(201).send(files);
    },
  );
};

const notesArea: Area = {
  name: 'notes',
  routes,
  permissions: notePermissions,
  errors: noteErrors,
  auditActions: noteActions,
  events: noteEvents,
  settings: noteSettings,
  formation: [noteKinds],
  files: {
    NOTE: { readPermission: 'NOTE_READ', rules: { extensions: ['png'], maxFileBytes: MB, maxFiles: 2, maxTotalBytes: 2 * MB } },
  },
  providers: [pagerSlot],
  jobs: {
    'notes.page': {
      description: 'Pages the care team about a new note',
      run: async (job, services) => {
        const { greeting } = settingsOf(services.config, noteSettings);
        const pager = await pagerOf(services, job.tenantId, String(job.instanceId));
        await pager.page(`${greeting}: ${String(job.payload.noteId)}`);
      },
      maxAttempts: 3,
    },
  },
};

test('an area declared in one Area value: routes, a file owner, a formation section, a setting, a job, an event and a provider', async () => {
  const app = await startApp({}, { areas: [...areas, notesArea], env: { CAIRN_NOTE_GREETING: 'Look' } });
  const t = await createTestTenant(app, testFormation({ noteKinds: [{ name: 'handover', title: 'Handover' }] } as never));
  const patient = await createPatient(t);
  const base = `${t.base}/patients/${patient.id}/notes`;

  // Its formation section is part of the formation: read by its route, checked at publish.
  assert.deepEqual((await t.api.get(`${t.base}/formations/current/note-kinds`)).body, [{ name: 'handover', title: 'Handover' }]);
  const current = (await t.api.get(`${t.base}/formations/current`)).body.formation;
  await t.api.put(`${t.base}/formations/draft`, { ...current, noteKinds: [{ name: 'a' }, { name: 'a' }] });
  assertCode(await t.api.post(`${t.base}/formations/draft/publish`), 400, 'FORMATION_INVALID');

  // Its route, under its permission, writing through the unit of work: audit, event and job together.
  assertCode(await t.api.post(base, { kind: 'gossip', text: 'x' }), 400, 'VALIDATION_ERROR');
  const created = await t.api.post(base, { kind: 'handover', text: 'Quiet night' });
  assert.equal(created.status, 201, created.text);
  const reader = await t.apiWith(['NOTE_READ']);
  assertCode(await reader.post(base, { kind: 'handover', text: 'x' }), 403, 'ACCESS_DENIED');
  const events = await app.services.db
    .selectFrom('events')
    .select(['event_entity', 'event_subtype', 'record_id'])
    .where('tenant_id', '=', t.tenant.id)
    .where('record_id', '=', created.body.id)
    .orderBy('seq')
    .execute();
  assert.deepEqual(
    events.map((event) => event.event_subtype),
    ['CDT_CREATED', 'NOTE_CREATED'],
  );

  // Its job runs on the queue, reading its setting and reaching its provider's sandbox driver.
  await app.jobs.drain();
  const pager = await pagerOf(app.services, t.tenant.id, t.instance.id);
  assert.equal(pager.driver, 'sandbox');
  assert.deepEqual(pager.sent, [`Look: ${created.body.id}`]);

  // Its file owner: its rules judge uploads, and reading a file by id needs its permission.
  const png = multipart([{ name: 'scan.png', content: sampleFile('png') }]);
  const uploaded = await t.api.request('POST', `${base}/${created.body.id}/files`, png.body, png.headers);
  assert.equal(uploaded.status, 201, uploaded.text);
  const pdf = multipart([{ name: 'scan.pdf', content: sampleFile('pdf') }]);
  assertCode(
    await t.api.request('POST', `${base}/${created.body.id}/files`, pdf.body, pdf.headers),
    400,
    'FILE_TYPE_NOT_ALLOWED',
  );
  const fileId = uploaded.body[0].id;
  assert.equal((await t.api.get(`${t.base}/files/${fileId}`)).status, 200);
  assertCode(await (await t.apiWith(['FILE_READ'])).get(`${t.base}/files/${fileId}`), 404, 'FILE_NOT_FOUND');
  assert.equal((await (await t.apiWith(['FILE_READ', 'NOTE_READ'])).get(`${t.base}/files/${fileId}`)).status, 200);

  // Its setting and its provider's settings are in the configuration the README lists.
  assert.equal(settingsOf(app.config, noteSettings).greeting, 'Look');
  assert.equal(settingsOf(app.config, pagerSlot.settings).driver, 'sandbox');
});

test("a provider's driver is chosen by its setting, checked, and replaced in tests like the blob store", async () => {
  const configured = await startApp(
    {},
    { areas: [...areas, notesArea], env: { CAIRN_PAGER_DRIVER: 'loud', CAIRN_PAGER_PREFIX: '!' } },
  );
  const scope = { tenantId: randomUUID(), instanceId: randomUUID() };
  assert.equal((await pagerOf(configured.services, scope.tenantId, scope.instanceId)).driver, 'loud');
  const unknown = await startApp({}, { areas: [...areas, notesArea], env: { CAIRN_PAGER_DRIVER: 'carrier-pigeon' } });
  await assert.rejects(pagerOf(unknown.services, scope.tenantId, scope.instanceId), /CAIRN_PAGER_DRIVER: one of sandbox, loud/);
  const fake = recordingPager('fake');
  const replaced = await startApp({}, { areas: [...areas, notesArea], providers: new Map([[pagerSlot, fake]]) });
  assert.equal(await pagerOf(replaced.services, scope.tenantId, scope.instanceId), fake);
});
