import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { seedBulk } from '../../cli/seed-bulk.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/** PATCH /patients: the same change to many patients, all or nothing (001). */

const app = await startApp();

async function createUser(t: TestTenant, username: string) {
  const response = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; username: string };
}

async function read(t: TestTenant, id: string) {
  const response = await t.api.get(`${t.base}/patients/${id}`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

async function bulk(t: TestTenant, body: Record<string, unknown>) {
  const response = await t.api.patch(`${t.base}/patients`, body);
  assert.equal(response.status, 200, response.text);
  assert.ok(Array.isArray(response.body), 'the result is an array of patients');
  return response.body as any[];
}

/** The care team as `[id, pointOfContact]` pairs, in order. */
function team(patient: { careTeamMembers: { id: string; pointOfContact: boolean }[] }) {
  return patient.careTeamMembers.map((m) => [m.id, m.pointOfContact]);
}

async function setup() {
  const t = await createTestTenant(app);
  const [nurse, doctor, social, coach] = [
    await createUser(t, 'nurse'),
    await createUser(t, 'doctor'),
    await createUser(t, 'social'),
    await createUser(t, 'coach'),
  ];
  return { t, nurse: nurse!, doctor: doctor!, social: social!, coach: coach! };
}

describe('PATCH /patients (bulk)', () => {
  test('sets timezone, territories and cadence on every listed patient and answers them in order', async () => {
    const { t, nurse } = await setup();
    const a = await createPatient(t, { firstName: 'A', timezone: 'US/Pacific', city: 'Reno', careTeam: [{ id: nurse.id }] });
    const b = await createPatient(t, { firstName: 'B', patientRegion: 'east', patientTerritory: 'florida' });
    const untouched = await createPatient(t, { firstName: 'C', timezone: 'US/Pacific' });
    const cadence = [{ schedules: [{ hour: 10, minute: 5, days: ['TUESDAY'] }], priority: 'MEDIUM' }];
    const result = await bulk(t, {
      ids: [b.id, a.id],
      timezone: 'Australia/Lord_Howe',
      patientTerritories: [{ name: 'west', territories: ['oregon'] }],
      cadence,
    });
    assert.deepEqual(
      result.map((p) => p.id),
      [b.id, a.id],
    );
    for (const patient of result) {
      assert.equal(patient.timezone, 'Australia/Lord_Howe');
      assert.deepEqual(patient.patientTerritories, [{ name: 'west', territories: ['oregon'] }]);
      assert.deepEqual(patient.cadence, cadence);
      assert.match(patient.updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual(await read(t, patient.id), patient, 'the answer is what GET reads');
    }
    // Fields the bulk body leaves out keep their values.
    const [afterB, afterA] = result;
    assert.equal(afterA.city, 'Reno');
    assert.deepEqual(team(afterA), [[nurse.id, true]]);
    assert.equal(afterB.patientRegion, 'east');
    assert.equal(afterB.patientTerritory, 'florida');
    assert.equal(afterB.patientRegionTitle, 'East');
    assert.equal((await read(t, untouched.id)).timezone, 'US/Pacific');
    // null and "" clear the timezone, as on a single patient.
    for (const cleared of [null, '']) {
      const [again] = await bulk(t, { ids: [untouched.id], timezone: 'CET' });
      assert.equal(again!.timezone, 'CET');
      const [clearedPatient] = await bulk(t, { ids: [untouched.id], timezone: cleared });
      assert.equal(clearedPatient!.timezone, null, JSON.stringify(cleared));
    }
    // The filters see the new territories, and still the old region of B.
    const oregon = await t.api.get(`${t.base}/patients?territories=oregon`);
    assert.deepEqual(oregon.body.content.map((p: { id: string }) => p.id).sort(), [a.id, b.id].sort());
    const east = await t.api.get(`${t.base}/patients?region=east`);
    assert.deepEqual(
      east.body.content.map((p: { id: string }) => p.id),
      [b.id],
    );
  });

  test('sets patientRegion and patientTerritory; territories must exist', async () => {
    const { t } = await setup();
    const a = await createPatient(t);
    const b = await createPatient(t);
    const result = await bulk(t, { ids: [a.id, b.id], patientRegion: 'west', patientTerritory: 'california' });
    for (const patient of result) {
      assert.equal(patient.patientRegion, 'west');
      assert.equal(patient.patientRegionTitle, 'West');
      assert.equal(patient.patientTerritory, 'california');
    }
    const bad: [string, Record<string, unknown>][] = [
      ['unknown region', { patientRegion: 'north' }],
      ['unknown territory', { patientTerritory: 'texas' }],
      ['territory of another region', { patientRegion: 'east', patientTerritory: 'california' }],
      ['unknown region in patientTerritories', { patientTerritories: [{ name: 'south', territories: [] }] }],
      ['territory outside its region', { patientTerritories: [{ name: 'east', territories: ['oregon'] }] }],
    ];
    for (const [label, fields] of bad) {
      assertCode(await t.api.patch(`${t.base}/patients`, { ids: [a.id, b.id], ...fields }), 400, 'VALIDATION_ERROR', label);
    }
    assert.equal((await read(t, a.id)).patientRegion, 'west');
    assert.equal((await read(t, b.id)).patientTerritory, 'california');
  });

  test('careTeamAdditions: added at the end, existing members and the point of contact kept', async () => {
    const { t, nurse, doctor, social } = await setup();
    const withTeam = await createPatient(t, { careTeam: [{ id: nurse.id }, { id: doctor.id }] });
    const withoutTeam = await createPatient(t);
    const result = await bulk(t, { ids: [withTeam.id, withoutTeam.id], careTeamAdditions: [social.id, doctor.id] });
    assert.deepEqual(team(result[0]), [
      [nurse.id, true],
      [doctor.id, false],
      [social.id, false],
    ]);
    // On an empty team the first one added becomes the point of contact.
    assert.deepEqual(team(result[1]), [
      [social.id, true],
      [doctor.id, false],
    ]);
    assert.equal(result[1].pointOfContact.id, social.id);
    assert.equal(result[1].careTeam.length, 2);
    assert.equal(result[1].careTeam[0].username, 'social');
    // Adding members already there changes nothing.
    const again = await bulk(t, { ids: [withTeam.id], careTeamAdditions: [nurse.id, social.id] });
    assert.deepEqual(team(again[0]), team(result[0]));
  });

  test('careTeamReplacements: swaps in place, keeping the point of contact', async () => {
    const { t, nurse, doctor, social, coach } = await setup();
    const a = await createPatient(t, { careTeam: [{ id: nurse.id }, { id: doctor.id }] });
    const b = await createPatient(t, { careTeam: [{ id: doctor.id }, { id: social.id, pointOfContact: true }] });
    const c = await createPatient(t, { careTeam: [{ id: social.id }] });
    const result = await bulk(t, { ids: [a.id, b.id, c.id], careTeamReplacements: [{ from: doctor.id, to: coach.id }] });
    assert.deepEqual(team(result[0]), [
      [nurse.id, true],
      [coach.id, false],
    ]);
    assert.deepEqual(team(result[1]), [
      [coach.id, false],
      [social.id, true],
    ]);
    assert.deepEqual(team(result[2]), [[social.id, true]], 'a team without `from` is unchanged');
    // The point of contact replaced: the newcomer takes the flag.
    const swapped = await bulk(t, { ids: [a.id], careTeamReplacements: [{ from: nurse.id, to: doctor.id }] });
    assert.deepEqual(team(swapped[0]), [
      [doctor.id, true],
      [coach.id, false],
    ]);
    assert.equal(swapped[0].pointOfContact.id, doctor.id);
  });

  test('careTeamReplacements: when `to` is already a member, `from` leaves and hands over the point of contact', async () => {
    const { t, nurse, doctor, social } = await setup();
    const a = await createPatient(t, {
      careTeam: [{ id: nurse.id, pointOfContact: true }, { id: doctor.id }, { id: social.id }],
    });
    const result = await bulk(t, { ids: [a.id], careTeamReplacements: [{ from: nurse.id, to: social.id }] });
    assert.deepEqual(team(result[0]), [
      [doctor.id, false],
      [social.id, true],
    ]);
    assert.equal(result[0].pointOfContact.id, social.id);
    assert.equal(result[0].careTeam.filter((m: { pointOfContact: boolean }) => m.pointOfContact).length, 1);
    // `to` already there and `from` not the point of contact: `from` just leaves.
    const second = await bulk(t, { ids: [a.id], careTeamReplacements: [{ from: doctor.id, to: social.id }] });
    assert.deepEqual(team(second[0]), [[social.id, true]]);
    // Replacing someone with themselves changes nothing.
    const same = await bulk(t, { ids: [a.id], careTeamReplacements: [{ from: social.id, to: social.id }] });
    assert.deepEqual(team(same[0]), [[social.id, true]]);
  });

  test('careTeamRemovals: a removed point of contact is replaced by the first remaining member', async () => {
    const { t, nurse, doctor, social } = await setup();
    const a = await createPatient(t, { careTeam: [{ id: nurse.id }, { id: doctor.id }, { id: social.id }] });
    const b = await createPatient(t, { careTeam: [{ id: doctor.id }, { id: nurse.id, pointOfContact: true }] });
    const c = await createPatient(t, { careTeam: [{ id: nurse.id }] });
    const result = await bulk(t, { ids: [a.id, b.id, c.id], careTeamRemovals: [nurse.id] });
    assert.deepEqual(team(result[0]), [
      [doctor.id, true],
      [social.id, false],
    ]);
    assert.deepEqual(team(result[1]), [[doctor.id, true]]);
    assert.deepEqual(team(result[2]), [], 'the last member removed leaves an empty team');
    assert.equal(result[2].pointOfContact, null);
    // Removing someone who is not a member (or not a user at all) changes nothing.
    const none = await bulk(t, { ids: [a.id], careTeamRemovals: [nurse.id, randomUUID()] });
    assert.deepEqual(team(none[0]), team(result[0]));
    const withoutTeam = await t.api.get(`${t.base}/patients?withoutCareTeam=true`);
    assert.deepEqual(
      withoutTeam.body.content.map((p: { id: string }) => p.id),
      [c.id],
    );
  });

  test('careTeam replaces every team; edits combine in order: careTeam, additions, replacements, removals', async () => {
    const { t, nurse, doctor, social, coach } = await setup();
    const a = await createPatient(t, { careTeam: [{ id: nurse.id }] });
    const b = await createPatient(t, { careTeam: [{ id: doctor.id }, { id: social.id }] });
    const replaced = await bulk(t, { ids: [a.id, b.id], careTeam: [{ id: social.id }, { id: coach.id, pointOfContact: true }] });
    for (const patient of replaced) {
      assert.deepEqual(team(patient), [
        [social.id, false],
        [coach.id, true],
      ]);
    }
    const combined = await bulk(t, {
      ids: [a.id, b.id],
      careTeam: [{ id: nurse.id }],
      careTeamAdditions: [doctor.id, social.id],
      careTeamReplacements: [{ from: doctor.id, to: coach.id }],
      careTeamRemovals: [nurse.id],
    });
    for (const patient of combined) {
      assert.deepEqual(team(patient), [
        [coach.id, true],
        [social.id, false],
      ]);
    }
    const cleared = await bulk(t, { ids: [a.id], careTeam: [] });
    assert.deepEqual(team(cleared[0]), []);
    assert.deepEqual(team(await read(t, b.id)), team(combined[1]!));
  });

  test('one unknown id is 404 PATIENT_NOT_FOUND and changes nothing at all', async () => {
    const { t, nurse, doctor } = await setup();
    const a = await createPatient(t, { timezone: 'US/Pacific', careTeam: [{ id: nurse.id }] });
    const b = await createPatient(t, { timezone: 'US/Pacific' });
    const before = [await read(t, a.id), await read(t, b.id)];
    const missing = randomUUID();
    const response = await t.api.patch(`${t.base}/patients`, {
      ids: [a.id, missing, b.id],
      timezone: 'CET',
      patientRegion: 'west',
      careTeamAdditions: [doctor.id],
      careTeamRemovals: [nurse.id],
    });
    assertCode(response, 404, 'PATIENT_NOT_FOUND');
    assert.ok(JSON.stringify(response.body[0].details).includes(missing), 'the details name the unknown id');
    assert.deepEqual([await read(t, a.id), await read(t, b.id)], before);
    const audit = await t.api.get(`${t.admin}/audit-data?patientId=${a.id}`);
    assert.deepEqual(
      audit.body.data.map((e: { action: string }) => e.action),
      ['PATIENT_CREATED'],
    );
    // A deleted patient counts as unknown.
    await t.api.delete(`${t.base}/patients/${b.id}`);
    assertCode(await t.api.patch(`${t.base}/patients`, { ids: [a.id, b.id], timezone: 'CET' }), 404, 'PATIENT_NOT_FOUND');
    assert.equal((await read(t, a.id)).timezone, 'US/Pacific');
  });

  test('bad input is 400 and changes nothing', async () => {
    const { t, nurse, doctor } = await setup();
    const a = await createPatient(t, { timezone: 'US/Pacific', careTeam: [{ id: nurse.id }] });
    const before = await read(t, a.id);
    const bad: [string, Record<string, unknown>][] = [
      ['no ids', { timezone: 'CET' }],
      ['empty ids', { ids: [], timezone: 'CET' }],
      ['a non-uuid id', { ids: [a.id, 'not-a-uuid'], timezone: 'CET' }],
      ['ids not a list', { ids: a.id, timezone: 'CET' }],
      ['an unsupported timezone', { ids: [a.id], timezone: 'Europe/Paris' }],
      ['a number for timezone', { ids: [a.id], timezone: 5 }],
      ['an addition who is not a user', { ids: [a.id], timezone: 'CET', careTeamAdditions: [doctor.id, randomUUID()] }],
      ['a non-uuid addition', { ids: [a.id], careTeamAdditions: ['doctor'] }],
      [
        'a replacement by someone who is not a user',
        { ids: [a.id], careTeamReplacements: [{ from: nurse.id, to: randomUUID() }] },
      ],
      ['a replacement without `to`', { ids: [a.id], careTeamReplacements: [{ from: nurse.id }] }],
      ['a non-uuid removal', { ids: [a.id], careTeamRemovals: [5] }],
      [
        'two points of contact',
        {
          ids: [a.id],
          careTeam: [
            { id: nurse.id, pointOfContact: true },
            { id: doctor.id, pointOfContact: true },
          ],
        },
      ],
      ['a care-team member who is not a user', { ids: [a.id], careTeam: [{ id: randomUUID() }] }],
      ['a cadence without priority', { ids: [a.id], cadence: [{ schedules: [] }] }],
    ];
    for (const [label, body] of bad) assertCode(await t.api.patch(`${t.base}/patients`, body), 400, 'VALIDATION_ERROR', label);
    assert.deepEqual(await read(t, a.id), before);
  });

  test('401 without a token, 403 without PATIENT_UPDATE', async () => {
    const { t } = await setup();
    const a = await createPatient(t, { timezone: 'US/Pacific' });
    assertCode(await t.anonymous.patch(`${t.base}/patients`, { ids: [a.id], timezone: 'CET' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['PATIENT_READ', 'PATIENT_CREATE', 'PATIENT_DELETE']);
    const denied = await reader.patch(`${t.base}/patients`, { ids: [a.id], timezone: 'CET' });
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'PATIENT_UPDATE');
    assert.equal((await read(t, a.id)).timezone, 'US/Pacific');
    const updater = await t.apiWith(['PATIENT_UPDATE']);
    const allowed = await updater.patch(`${t.base}/patients`, { ids: [a.id], timezone: 'CET' });
    assert.equal(allowed.status, 200, allowed.text);
    assert.match(allowed.body[0].updatedByName, /^API_CLIENT:client-/);
    assert.notEqual(allowed.body[0].updatedByName, allowed.body[0].createdByName);
  });

  test("another tenant's patients are unknown here", async () => {
    const { t } = await setup();
    const other = await createTestTenant(app);
    const mine = await createPatient(t);
    const theirs = await createPatient(other, { timezone: 'US/Pacific' });
    assertCode(await t.api.patch(`${t.base}/patients`, { ids: [mine.id, theirs.id], timezone: 'CET' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.patch(`${other.base}/patients`, { ids: [theirs.id], timezone: 'CET' }), 403, 'TENANT_ACCESS_DENIED');
    assert.equal((await read(other, theirs.id)).timezone, 'US/Pacific');
    assert.equal((await read(t, mine.id)).timezone, null);
    // A user of the other tenant is not a user here.
    const outsider = (await other.api.post(`${other.admin}/users`, { username: 'outsider', email: 'outsider@example.org' }))
      .body as { id: string };
    assertCode(
      await t.api.patch(`${t.base}/patients`, { ids: [mine.id], careTeamAdditions: [outsider.id] }),
      400,
      'VALIDATION_ERROR',
    );
  });

  test('every patient changed is audited as PATIENT_UPDATED', async () => {
    const { t, nurse } = await setup();
    const a = await createPatient(t);
    const b = await createPatient(t);
    await bulk(t, { ids: [a.id, b.id], timezone: 'CET', careTeamAdditions: [nurse.id] });
    for (const patient of [a, b]) {
      const audit = await t.api.get(`${t.admin}/audit-data?patientId=${patient.id}`);
      assert.equal(audit.status, 200);
      const actions = audit.body.data.map((e: { action: string }) => e.action).sort();
      assert.deepEqual(actions, ['PATIENT_CREATED', 'PATIENT_UPDATED']);
      const update = audit.body.data.find((e: { action: string }) => e.action === 'PATIENT_UPDATED');
      assert.equal(update.entityId, patient.id);
      assert.deepEqual([...update.changedFields].sort(), ['careTeamAdditions', 'timezone']);
    }
  });
});

describe('PATCH /patients (bulk) at size', () => {
  test("thousands of patients and large care teams are written in slices under PostgreSQL's parameter limit", async () => {
    const t = await createTestTenant(app);
    const { db } = app.services;
    await seedBulk(app.services, {
      tenant: t.tenant.name,
      instance: 'sandbox',
      patients: 4500,
      tasks: 0,
      users: 60,
      batchSize: 5000,
      keepIndexes: true,
    });
    const ids = (await db.selectFrom('patients').select('id').where('tenant_id', '=', t.tenant.id).execute()).map(
      (row) => row.id,
    );
    assert.equal(ids.length, 4500);
    // 4,500 audit rows of 15 values each: over 65,535 parameters in one INSERT.
    assert.equal((await bulk(t, { ids, timezone: 'CET' })).length, 4500);
    const audited = await db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('tenant_id', '=', t.tenant.id)
      .where('action', '=', 'PATIENT_UPDATED')
      .executeTakeFirstOrThrow();
    assert.equal(Number(audited.count), 4500);
    // 300 patients × 60 members × 5 values.
    const users = (await db.selectFrom('users').select('id').where('tenant_id', '=', t.tenant.id).execute()).map((row) => row.id);
    const careTeam = users.slice(0, 60).map((id) => ({ id }));
    const replaced = await bulk(t, { ids: ids.slice(0, 300), careTeam });
    assert.ok(replaced.every((patient) => patient.careTeam.length === 60));
  });
});
