import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
import { systemContext } from '../../http/context.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  isoMillis,
  newInstance,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { applyFormation } from '../formation/operations.ts';

/** A patient's contacts: /patients/{patientId}/contacts and /patients/{patientId}/contacts/{contactId}. */

const app = await startApp();

/** PROD-SHAPES "Contact": exactly the seed's list. */
const contactKeys = [
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'createdByName',
  'updatedByName',
  'name',
  'email',
  'emailLabel',
  'emailPdtFieldName',
  'phone',
  'phoneLabel',
  'phonePdtFieldName',
  'secondaryPhone',
  'secondaryPhoneLabel',
  'secondaryPhonePdtFieldName',
  'patientId',
  'pdtRecordId',
  'relation',
  'active',
].sort();

const pdts: NonNullable<Formation['pdts']> = [
  {
    name: 'caregiver',
    title: 'Caregiver',
    contactable: true,
    fields: [
      { name: 'pdtf-name', type: 'text', required: true },
      { name: 'pdtf-email', type: 'email' },
      { name: 'pdtf-phone', type: 'phone' },
      { name: 'pdtf-mobile', type: 'phone' },
      { name: 'pdtf-note', type: 'text' },
    ],
  },
  { name: 'physician', title: 'Physician', fields: [{ name: 'pdtf-name', type: 'text' }] },
];

const formation = () => testFormation({ pdts });

const ann = {
  'pdtf-name': 'Ann Lee',
  'pdtf-email': 'ann.lee@example.org',
  'pdtf-phone': '+14155550123',
  'pdtf-mobile': '+14155550199',
  'pdtf-note': 'not a phone',
};

async function tenant(): Promise<TestTenant> {
  return createTestTenant(app, formation());
}

async function createRecord(t: TestTenant, body: Record<string, unknown> = ann, pdtName = 'caregiver') {
  const response = await t.api.post(`${t.base}/pdts/${pdtName}`, body);
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string };
}

async function addContact(t: TestTenant, patientId: string, body: Record<string, unknown> = { name: 'Ann' }) {
  const response = await t.api.post(`${t.base}/patients/${patientId}/contacts`, body);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

/** Bodies every create and PATCH must reject, with the field the error names. */
const badBodies: [string, Record<string, unknown>, string][] = [
  ['a number for name (not coerced)', { name: 5 }, 'body.name'],
  ['a bad email', { email: 'ann@' }, 'body.email'],
  ['a phone with the national leading zero', { phone: '+4402079460000' }, 'body.phone'],
  ['a national phone', { phone: '02079460000' }, 'body.phone'],
  ['a number for a phone', { phone: 14155550123 }, 'body.phone'],
  ['a bad secondary phone', { secondaryPhone: '+1201555012' }, 'body.secondaryPhone'],
  ['a string for active', { active: 'yes' }, 'body.active'],
  ['a null active', { active: null }, 'body.active'],
  ['a number for relation', { relation: 1 }, 'body.relation'],
  ['a boolean for a label', { phoneLabel: true }, 'body.phoneLabel'],
];

describe('POST /patients/{patientId}/contacts', () => {
  test('answers 200 with the production key set; active defaults to true', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const response = await t.api.post(`${t.base}/patients/${patient.id}/contacts`, {
      name: 'Ann Lee',
      email: 'ann@example.org',
      emailLabel: 'home',
      phone: '+14155550123',
      phoneLabel: 'mobile',
      secondaryPhone: '+442079460000',
      secondaryPhoneLabel: 'work',
      relation: 'DAUGHTER',
    });
    assert.equal(response.status, 200, response.text);
    const contact = response.body;
    assert.deepEqual(Object.keys(contact).sort(), contactKeys);
    assert.match(contact.id, uuidShape);
    assert.match(contact.createdAt, isoMillis);
    assert.match(contact.updatedAt, isoMillis);
    assert.equal(contact.createdBy, t.adminClient.id);
    assert.equal(contact.updatedBy, t.adminClient.id);
    assert.equal(contact.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(contact.updatedByName, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(contact.patientId, patient.id);
    assert.equal(contact.pdtRecordId, null);
    assert.equal(contact.active, true);
    assert.equal(contact.name, 'Ann Lee');
    assert.equal(contact.email, 'ann@example.org');
    assert.equal(contact.secondaryPhone, '+442079460000');
    assert.equal(contact.relation, 'DAUGHTER');
    assert.equal(contact.emailPdtFieldName, null);
    const read = await t.api.get(`${t.base}/patients/${patient.id}/contacts/${contact.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, contact);
  });

  test('an empty body is a contact with no values; "" counts as null for email and phones', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const empty = await addContact(t, patient.id, {});
    assert.equal(empty.name, null);
    assert.equal(empty.active, true);
    const blanks = await addContact(t, patient.id, {
      name: 'B',
      email: '',
      phone: '',
      secondaryPhone: '',
      emailPdtFieldName: '',
      active: false,
    });
    assert.equal(blanks.email, null);
    assert.equal(blanks.phone, null);
    assert.equal(blanks.secondaryPhone, null);
    assert.equal(blanks.active, false);
  });

  test('read-only and unknown keys are ignored', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const other = await createPatient(t, { firstName: 'Other', lastName: 'Ient' });
    const first = await addContact(t, patient.id, { name: 'Ann' });
    const response = await t.api.post(`${t.base}/patients/${patient.id}/contacts`, {
      ...first,
      id: randomUUID(),
      patientId: other.id,
      createdByName: 'forged',
      createdAt: '2000-01-01T00:00:00.000Z',
      colour: 'blue',
      name: 'Bea',
    });
    assert.equal(response.status, 200, response.text);
    assert.notEqual(response.body.id, first.id);
    assert.equal(response.body.patientId, patient.id);
    assert.equal(response.body.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.notEqual(response.body.createdAt, '2000-01-01T00:00:00.000Z');
    assert.equal(response.body.name, 'Bea');
  });

  test('400 for bad values; nothing is stored', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    for (const [label, body, path] of badBodies) {
      assertValidation(await t.api.post(`${t.base}/patients/${patient.id}/contacts`, body), path, label);
    }
    assertValidation(await t.api.post(`${t.base}/patients/${patient.id}/contacts`, { pdtRecordId: 'abc' }), 'body.pdtRecordId');
    const array = await t.api.request('POST', `${t.base}/patients/${patient.id}/contacts`, '[]', {
      'content-type': 'application/json',
    });
    assertCode(array, 400, 'VALIDATION_ERROR');
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}/contacts`)).body.totalElements, 0);
  });

  test('404 for a missing patient; 400 for a malformed patient id; 401; 403 without GENERAL_MY_PATIENTS_READ_UPDATE', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    assertCode(await t.api.post(`${t.base}/patients/${randomUUID()}/contacts`, { name: 'A' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.post(`${t.base}/patients/nope/contacts`, { name: 'A' }), 400, 'VALIDATION_ERROR');
    assertCode(
      await t.anonymous.post(`${t.base}/patients/${patient.id}/contacts`, { name: 'A' }),
      401,
      'NOT_VALID_JSON_WEB_TOKEN',
    );
    const denied = await t.apiWith(['PATIENT_READ', 'PATIENT_UPDATE', 'PDT_READ', 'PDT_UPDATE']);
    assertCode(await denied.post(`${t.base}/patients/${patient.id}/contacts`, { name: 'A' }), 403, 'ACCESS_DENIED');
    const allowed = await t.apiWith(['GENERAL_MY_PATIENTS_READ_UPDATE']);
    assert.equal((await allowed.post(`${t.base}/patients/${patient.id}/contacts`, { name: 'A' })).status, 200);
  });

  test('the create is in the audit log with the patient', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const contact = await addContact(t, patient.id, { name: 'Ann', relation: 'SON' });
    const events = await auditOf(t, { patientId: patient.id, entityType: 'CONTACT' });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.action, 'CONTACT_CREATED');
    assert.equal(events[0]!.entityId, contact.id);
    assert.equal(events[0]!.patientId, patient.id);
    assert.deepEqual(events[0]!.changedFields?.sort(), ['name', 'relation']);
  });
});

describe('contacts backed by PDT records', () => {
  test('pdtRecordId must be a live record of a contactable type in this instance', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const url = `${t.base}/patients/${patient.id}/contacts`;
    const record = await createRecord(t);
    const linked = await addContact(t, patient.id, { name: 'Ann', pdtRecordId: record.id });
    assert.equal(linked.pdtRecordId, record.id);

    const physician = await createRecord(t, { 'pdtf-name': 'Dr Who' }, 'physician');
    const notContactable = await t.api.post(url, { name: 'Dr', pdtRecordId: physician.id });
    assertValidation(notContactable, 'body.pdtRecordId');
    assert.match(notContactable.body[0].message, /not contactable/);

    assertValidation(await t.api.post(url, { pdtRecordId: randomUUID() }), 'body.pdtRecordId', 'unknown record');

    const gone = await createRecord(t, { 'pdtf-name': 'Gone' });
    await t.api.delete(`${t.base}/pdts/caregiver/${gone.id}`);
    const deleted = await t.api.post(url, { pdtRecordId: gone.id });
    assertValidation(deleted, 'body.pdtRecordId', 'deleted record');
    assert.match(deleted.body[0].message, /deleted/);

    // Contactable is read from the current formation.
    const current = (await t.api.get(`${t.base}/formations/current`)).body.formation as Formation;
    const switchedOff = { ...current, pdts: pdts.map((pdt) => ({ ...pdt, contactable: false })) };
    assert.equal((await t.api.put(`${t.base}/formations/draft`, switchedOff)).status, 200);
    assert.equal((await t.api.post(`${t.base}/formations/draft/publish`)).status, 200);
    assertValidation(await t.api.post(url, { pdtRecordId: record.id }), 'body.pdtRecordId', 'switched off');
    assert.equal((await t.api.get(`${url}/${linked.id}`)).body.pdtRecordId, record.id, 'existing links stay');
  });

  test('values named by *PdtFieldName are taken from the PDT record when not given', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const record = await createRecord(t);
    const contact = await addContact(t, patient.id, {
      name: 'Ann',
      pdtRecordId: record.id,
      emailPdtFieldName: 'pdtf-email',
      phonePdtFieldName: 'pdtf-phone',
      secondaryPhonePdtFieldName: 'pdtf-mobile',
    });
    assert.equal(contact.email, 'ann.lee@example.org');
    assert.equal(contact.emailPdtFieldName, 'pdtf-email');
    assert.equal(contact.phone, '+14155550123');
    assert.equal(contact.phonePdtFieldName, 'pdtf-phone');
    assert.equal(contact.secondaryPhone, '+14155550199');
    assert.equal(contact.secondaryPhonePdtFieldName, 'pdtf-mobile');

    // A value given wins over the field; an unset field gives null.
    const sparse = await createRecord(t, { 'pdtf-name': 'Sparse' });
    const mixed = await addContact(t, patient.id, {
      pdtRecordId: sparse.id,
      email: 'own@example.org',
      emailPdtFieldName: 'pdtf-email',
      phonePdtFieldName: 'pdtf-phone',
    });
    assert.equal(mixed.email, 'own@example.org');
    assert.equal(mixed.phone, null);
    assert.equal(mixed.phonePdtFieldName, 'pdtf-phone');
  });

  test('400 when a *PdtFieldName cannot supply its value', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const record = await createRecord(t);
    const url = `${t.base}/patients/${patient.id}/contacts`;
    assertValidation(
      await t.api.post(url, { pdtRecordId: record.id, emailPdtFieldName: 'pdtf-unknown' }),
      'body.emailPdtFieldName',
      'not a field',
    );
    assertValidation(await t.api.post(url, { phonePdtFieldName: 'pdtf-phone' }), 'body.phonePdtFieldName', 'no record');
    assertValidation(
      await t.api.post(url, { pdtRecordId: record.id, phonePdtFieldName: 'pdtf-note' }),
      'body.phonePdtFieldName',
      'a value that is not a phone',
    );
    assertValidation(
      await t.api.post(url, { pdtRecordId: record.id, emailPdtFieldName: 'pdtf-name' }),
      'body.emailPdtFieldName',
      'a value that is not an email',
    );
    // With the value given, the field only has to exist.
    const given = await addContact(t, patient.id, {
      pdtRecordId: record.id,
      phone: '+14155550100',
      phonePdtFieldName: 'pdtf-note',
    });
    assert.equal(given.phone, '+14155550100');
    assert.equal((await t.api.get(url)).body.totalElements, 1);
  });
});

describe('GET /patients/{patientId}/contacts', () => {
  test("a page object of the patient's contacts only, with filters, sort and paging", async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const other = await createPatient(t, { firstName: 'Other', lastName: 'Ient' });
    const carl = await addContact(t, patient.id, { name: 'Carl', relation: 'SON' });
    const anna = await addContact(t, patient.id, { name: 'Anna', relation: 'DAUGHTER', active: false });
    const bob = await addContact(t, patient.id, { name: 'Bob', relation: 'SON' });
    await addContact(t, other.id, { name: 'Elsewhere', relation: 'SON' });

    const all = await t.api.get(`${t.base}/patients/${patient.id}/contacts`);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.totalElements, 3);
    assert.deepEqual(all.body.content, [carl, anna, bob], 'creation order by default');
    assert.equal(all.body.number, 0);
    assert.equal(all.body.size, 20);
    assert.equal(all.body.sort.sorted, false);

    const names = async (query: string) =>
      (await t.api.get(`${t.base}/patients/${patient.id}/contacts${query}`)).body.content.map((c: { name: string }) => c.name);
    assert.deepEqual(await names('?sort=name,asc'), ['Anna', 'Bob', 'Carl']);
    assert.deepEqual(await names('?sort=name,desc'), ['Carl', 'Bob', 'Anna']);
    assert.deepEqual(await names('?sort=relation&sort=name,desc'), ['Anna', 'Carl', 'Bob']);
    assert.deepEqual(await names('?sort=createdAt,desc'), ['Bob', 'Anna', 'Carl']);
    assert.deepEqual(await names('?active=true'), ['Carl', 'Bob']);
    assert.deepEqual(await names('?active=FALSE'), ['Anna']);
    assert.deepEqual(await names('?relation=SON'), ['Carl', 'Bob']);
    assert.deepEqual(await names('?relation=son'), [], 'relation matches the whole value as stored');
    assert.deepEqual(await names('?relation=SON&active=True'), ['Carl', 'Bob']);
    assert.deepEqual(await names('?colour=blue&page=0'), ['Carl', 'Anna', 'Bob'], 'unknown parameters are ignored');

    const page = await t.api.get(`${t.base}/patients/${patient.id}/contacts?page=1&size=2&sort=name`);
    assert.deepEqual(
      page.body.content.map((c: { id: string }) => c.id),
      [carl.id],
    );
    assert.equal(page.body.totalPages, 2);
    assert.equal(page.body.last, true);
    assert.equal(page.body.sort.sorted, true);
  });

  test('400 for bad paging, sort or filters; 404 for a missing patient; 401; 403', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const url = `${t.base}/patients/${patient.id}/contacts`;
    assertCode(await t.api.get(`${url}?size=0`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${url}?page=-1`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${url}?active=maybe`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${url}?sort=email,asc`), 400, 'INVALID_SORT');
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/contacts`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/123/contacts`), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const denied = await t.apiWith(['PATIENT_READ']);
    assertCode(await denied.get(url), 403, 'ACCESS_DENIED');
  });
});

describe('GET /patients/{patientId}/contacts/{contactId}', () => {
  test("404 CONTACT_NOT_FOUND for unknown ids and another patient's contact; 400; 401; 403", async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const other = await createPatient(t, { firstName: 'Other', lastName: 'Ient' });
    const theirs = await addContact(t, other.id);
    const mine = await addContact(t, patient.id);
    const url = `${t.base}/patients/${patient.id}/contacts`;
    assertCode(await t.api.get(`${url}/${randomUUID()}`), 404, 'CONTACT_NOT_FOUND');
    assertCode(await t.api.get(`${url}/${theirs.id}`), 404, 'CONTACT_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/contacts/${mine.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(`${url}/nope`), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.get(`${url}/${mine.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const denied = await t.apiWith(['PATIENT_READ']);
    assertCode(await denied.get(`${url}/${mine.id}`), 403, 'ACCESS_DENIED');
  });
});

describe('PATCH /patients/{patientId}/contacts/{contactId}', () => {
  test('changes only the fields given; null clears', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const contact = await addContact(t, patient.id, { name: 'Ann', email: 'ann@example.org', relation: 'SON' });
    const url = `${t.base}/patients/${patient.id}/contacts/${contact.id}`;
    const response = await t.api.patch(url, { relation: 'DAUGHTER', email: null, active: false });
    assert.equal(response.status, 200, response.text);
    const updated = response.body;
    assert.deepEqual(Object.keys(updated).sort(), contactKeys);
    assert.equal(updated.id, contact.id);
    assert.equal(updated.name, 'Ann', 'kept');
    assert.equal(updated.relation, 'DAUGHTER');
    assert.equal(updated.email, null);
    assert.equal(updated.active, false);
    assert.equal(updated.createdAt, contact.createdAt);
    assert.ok(updated.updatedAt >= contact.updatedAt);
    assert.deepEqual((await t.api.get(url)).body, updated);
  });

  test('pdtRecordId is write-once: the same value is fine, any other is a 400', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const record = await createRecord(t);
    const another = await createRecord(t, { 'pdtf-name': 'Another' });
    const linked = await addContact(t, patient.id, { name: 'Ann', pdtRecordId: record.id });
    const unlinked = await addContact(t, patient.id, { name: 'Bob' });
    const linkedUrl = `${t.base}/patients/${patient.id}/contacts/${linked.id}`;
    const unlinkedUrl = `${t.base}/patients/${patient.id}/contacts/${unlinked.id}`;

    assertValidation(await t.api.patch(linkedUrl, { pdtRecordId: another.id }), 'body.pdtRecordId', 'another record');
    assertValidation(await t.api.patch(linkedUrl, { pdtRecordId: null }), 'body.pdtRecordId', 'value → null');
    assertValidation(await t.api.patch(unlinkedUrl, { pdtRecordId: record.id }), 'body.pdtRecordId', 'null → value');
    assert.deepEqual((await t.api.get(linkedUrl)).body, linked);
    assert.deepEqual((await t.api.get(unlinkedUrl)).body, unlinked);

    // A whole contact sent back, with its own pdtRecordId, is fine.
    const same = await t.api.patch(linkedUrl, { ...linked, name: 'Ann L' });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.pdtRecordId, record.id);
    assert.equal(same.body.name, 'Ann L');
    const upper = await t.api.patch(linkedUrl, { pdtRecordId: record.id.toUpperCase() });
    assert.equal(upper.status, 200, upper.text);
    const stillNull = await t.api.patch(unlinkedUrl, { pdtRecordId: null, relation: 'SON' });
    assert.equal(stillNull.status, 200, stillNull.text);
    assert.equal(stillNull.body.pdtRecordId, null);
  });

  test("a *PdtFieldName given on PATCH takes the value from the contact's record", async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const record = await createRecord(t);
    const contact = await addContact(t, patient.id, { name: 'Ann', pdtRecordId: record.id, phone: '+14155550100' });
    const url = `${t.base}/patients/${patient.id}/contacts/${contact.id}`;
    const response = await t.api.patch(url, { emailPdtFieldName: 'pdtf-email', phonePdtFieldName: 'pdtf-mobile' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.email, 'ann.lee@example.org');
    assert.equal(response.body.phone, '+14155550199');
    assert.equal(response.body.name, 'Ann');

    // The value is copied when written: later changes to the record do not follow.
    await t.api.patch(`${t.base}/pdts/caregiver/${record.id}`, { 'pdtf-email': 'new@example.org' });
    assert.equal((await t.api.get(url)).body.email, 'ann.lee@example.org');

    const plain = await addContact(t, patient.id, { name: 'Bob' });
    assertValidation(
      await t.api.patch(`${t.base}/patients/${patient.id}/contacts/${plain.id}`, { emailPdtFieldName: 'pdtf-email' }),
      'body.emailPdtFieldName',
    );
  });

  test('400 for bad values; the contact is unchanged', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const contact = await addContact(t, patient.id, { name: 'Ann' });
    const url = `${t.base}/patients/${patient.id}/contacts/${contact.id}`;
    for (const [label, body, path] of badBodies) assertValidation(await t.api.patch(url, body), path, label);
    assert.deepEqual((await t.api.get(url)).body, contact);
  });

  test("404 for unknown ids, another patient's contact or a missing patient; 400 for a malformed id; 401; 403", async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const other = await createPatient(t, { firstName: 'Other', lastName: 'Ient' });
    const theirs = await addContact(t, other.id, { name: 'Theirs' });
    const mine = await addContact(t, patient.id, { name: 'Mine' });
    const url = `${t.base}/patients/${patient.id}/contacts`;
    assertCode(await t.api.patch(`${url}/${randomUUID()}`, { name: 'X' }), 404, 'CONTACT_NOT_FOUND');
    assertCode(await t.api.patch(`${url}/${theirs.id}`, { name: 'X' }), 404, 'CONTACT_NOT_FOUND');
    assertCode(await t.api.patch(`${t.base}/patients/${randomUUID()}/contacts/${mine.id}`, {}), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.patch(`${url}/nope`, { name: 'X' }), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.patch(`${url}/${mine.id}`, { name: 'X' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const denied = await t.apiWith(['PATIENT_UPDATE']);
    assertCode(await denied.patch(`${url}/${mine.id}`, { name: 'X' }), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(`${t.base}/patients/${other.id}/contacts/${theirs.id}`)).body, theirs);
    assert.deepEqual((await t.api.get(`${url}/${mine.id}`)).body, mine);
  });

  test('the update is in the audit log with the fields it touched', async () => {
    const t = await tenant();
    const patient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const contact = await addContact(t, patient.id, { name: 'Ann' });
    await t.api.patch(`${t.base}/patients/${patient.id}/contacts/${contact.id}`, { relation: 'SON', colour: 'blue' });
    const events = await auditOf(t, { patientId: patient.id, entityType: 'CONTACT' });
    assert.deepEqual(
      events.map((e) => e.action),
      ['CONTACT_UPDATED', 'CONTACT_CREATED'],
    );
    assert.equal(events[0]!.entityId, contact.id);
    assert.deepEqual(events[0]!.changedFields, ['relation']);
  });
});

describe('tenant and instance isolation', () => {
  test("a token for tenant A is 403 on every contact route of tenant B, and B's data is untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    const patient = await createPatient(b);
    const contact = await addContact(b, patient.id, { name: 'Ann' });
    const url = `${b.base}/patients/${patient.id}/contacts`;
    const attempts: [string, () => Promise<Response>][] = [
      ['list', () => a.api.get(url)],
      ['create', () => a.api.post(url, { name: 'X' })],
      ['read', () => a.api.get(`${url}/${contact.id}`)],
      ['patch', () => a.api.patch(`${url}/${contact.id}`, { name: 'X' })],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.api.get(`${url}/${contact.id}`)).body, contact);
    assert.equal((await b.api.get(url)).body.totalElements, 1);
  });

  test("tenant B's patients, contacts and PDT records do not exist on tenant A's paths", async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = await createPatient(a);
    const myContact = await addContact(a, mine.id, { name: 'Mine' });
    const theirPatient = await createPatient(b);
    const theirContact = await addContact(b, theirPatient.id, { name: 'Theirs' });
    const theirRecord = await createRecord(b);
    const theirUrl = `${a.base}/patients/${theirPatient.id}/contacts`;
    assertCode(await a.api.get(theirUrl), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.post(theirUrl, { name: 'X' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.get(`${theirUrl}/${theirContact.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.patch(`${theirUrl}/${theirContact.id}`, { name: 'X' }), 404, 'PATIENT_NOT_FOUND');
    const myUrl = `${a.base}/patients/${mine.id}/contacts`;
    assertCode(await a.api.get(`${myUrl}/${theirContact.id}`), 404, 'CONTACT_NOT_FOUND');
    assertCode(await a.api.patch(`${myUrl}/${theirContact.id}`, { name: 'X' }), 404, 'CONTACT_NOT_FOUND');
    assertValidation(await a.api.post(myUrl, { pdtRecordId: theirRecord.id }), 'body.pdtRecordId', "B's PDT record");
    assert.deepEqual((await a.api.get(myUrl)).body.content, [myContact]);
    assert.deepEqual((await b.api.get(`${b.base}/patients/${theirPatient.id}/contacts/${theirContact.id}`)).body, theirContact);
  });

  test("a second instance of the same tenant cannot link the first's PDT records", async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const sandboxPatient = await createPatient(t, { firstName: 'Pat', lastName: 'Ient' });
    const sandboxContact = await addContact(t, sandboxPatient.id, { name: 'S' });
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), formation());
    const liveApi = new Api(app.server, (await t.clientWithRole('admin', { ...live, currentFormationVersion: 1 })).token);
    const liveBase = `/${t.tenant.name}/live`;
    const livePatient = (await liveApi.post(`${liveBase}/patients`, { firstName: 'L', lastName: 'P' })).body;
    const liveUrl = `${liveBase}/patients/${livePatient.id}/contacts`;
    assertValidation(await liveApi.post(liveUrl, { pdtRecordId: record.id }), 'body.pdtRecordId');
    assertCode(await liveApi.get(`${liveUrl}/${sandboxContact.id}`), 404, 'CONTACT_NOT_FOUND');
    assertCode(await liveApi.get(`${liveBase}/patients/${sandboxPatient.id}/contacts`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(liveUrl), 403, 'INSTANCE_ACCESS_DENIED');
  });
});
