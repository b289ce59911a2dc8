import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertOutcome, createUser, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { createTestInstance, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * PractitionerRole (the users area: a user's roles in the instance), as docs/fhir.md maps it: every
 * answer validates against US Core 6.1.0 PractitionerRole (pd-1 included); `practitioner` and
 * `specialty` search, `_include=PractitionerRole:practitioner` adds the users.
 */

const app = await startApp();
const ROLES = 'https://cairn.health/fhir/CodeSystem/role';

const withRoles = (t: TestTenant, roles: [string, string][], body: Record<string, unknown> = {}) =>
  createUser(t, { ...body, roles: roles.map(([permissionName, instanceName]) => ({ permissionName, instanceName })) });

describe('FHIR R4: PractitionerRole (US Core 6.1.0 PractitionerRole)', () => {
  test("a user's roles in the instance: read, searched, included, valid", async () => {
    const t = await createTestTenant(app);
    const second = await createTestInstance(t, 'second');
    const base = fhirBase(t);
    const ann = await withRoles(
      t,
      [
        ['patient-reader', 'sandbox'],
        ['admin', 'sandbox'],
        ['admin', 'second'],
      ],
      { firstName: 'Ann', lastName: 'Lee', phone: '+12015550100' },
    );
    const bo = await withRoles(t, [['nothing', 'sandbox']]);
    const elsewhere = await withRoles(t, [['admin', 'second']]);
    const none = await createUser(t);

    const read = await t.api.get(`${base}/PractitionerRole/${ann.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(usCoreErrors(read.body, 'us-core-practitionerrole'), []);
    // pd-1 is checked (by hand: @medplum/core cannot evaluate it): no telecom and no endpoint fails.
    assert.deepEqual(usCoreErrors({ ...read.body, telecom: undefined }, 'us-core-practitionerrole'), [
      'PractitionerRole: pd-1: telecom or endpoint',
    ]);
    const { practitioner, organization, code, telecom, active } = read.body;
    assert.deepEqual(
      { practitioner, organization, active },
      {
        practitioner: { reference: `Practitioner/${ann.id}` },
        organization: { reference: `Organization/${t.instance.id}` },
        active: true,
      },
    );
    assert.deepEqual(
      code.map((concept: { coding: { system: string; code: string }[]; text: string }) => [
        concept.coding[0]!.system,
        concept.coding[0]!.code,
        concept.text,
      ]),
      [
        [ROLES, 'admin', 'Administrator'],
        [ROLES, 'patient-reader', 'Patient reader'],
      ],
    );
    assert.deepEqual(telecom, [
      { system: 'email', value: ann.email, use: 'work' },
      { system: 'phone', value: '+12015550100', use: 'work' },
    ]);
    // The organization it names reads.
    assert.equal((await t.api.get(`${base}/${organization.reference}`)).status, 200);

    // Roles of another instance are that instance's FHIR server's; no role, no PractitionerRole.
    assertOutcome(await t.api.get(`${base}/PractitionerRole/${elsewhere.id}`), 404, 'PRACTITIONER_ROLE_NOT_FOUND');
    assertOutcome(await t.api.get(`${base}/PractitionerRole/${none.id}`), 404, 'PRACTITIONER_ROLE_NOT_FOUND');
    const there = await second.api.get(`${fhirBase(second)}/PractitionerRole/${elsewhere.id}`);
    assert.equal(there.status, 200, there.text);
    assert.deepEqual(there.body.organization, { reference: `Organization/${second.instance.id}` });

    const search = async (query: string) => {
      const response = await t.api.get(`${base}/PractitionerRole${query}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      for (const entry of response.body.entry ?? [])
        if (entry.search.mode === 'match') assert.deepEqual(usCoreErrors(entry.resource, 'us-core-practitionerrole'), []);
      return response.body;
    };
    // The test tenant's admin is an API client, not a practitioner: users alone.
    assert.deepEqual(idsOf(await search('')), [ann.id, bo.id].sort());
    assert.deepEqual(idsOf(await search(`?practitioner=Practitioner/${ann.id}`)), [ann.id]);
    assert.deepEqual(idsOf(await search(`?practitioner=${bo.id},${elsewhere.id}`)), [bo.id]);
    assert.deepEqual(idsOf(await search('?specialty=http://nucc.org/provider-taxonomy|208D00000X')), [], 'no specialty is kept');
    assert.deepEqual(idsOf(await search(`?organization=Organization/${t.instance.id}&_count=1`)).length, 1);

    const included = await search(`?practitioner=${ann.id}&_include=PractitionerRole:practitioner`);
    assert.deepEqual(
      included.entry.map((entry: { search: { mode: string }; resource: { resourceType: string; id: string } }) => [
        entry.search.mode,
        `${entry.resource.resourceType}/${entry.resource.id}`,
      ]),
      [
        ['match', `PractitionerRole/${ann.id}`],
        ['include', `Practitioner/${ann.id}`],
      ],
    );
    const withOrganization = await search(`?practitioner=${ann.id}&_include=PractitionerRole:organization`);
    assert.deepEqual(withOrganization.entry[1].resource.id, t.instance.id);

    // A deleted user holds no roles.
    assert.equal((await t.api.delete(`${t.admin}/users/${bo.username}`)).status, 200);
    assertOutcome(await t.api.get(`${base}/PractitionerRole/${bo.id}`), 404, 'PRACTITIONER_ROLE_NOT_FOUND');
  });

  test("401 without a token, 403 without USER_READ, 404 for another tenant's; 400 for a bad parameter; no access record", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const base = fhirBase(t);
    const mine = await withRoles(t, [['admin', 'sandbox']]);
    const theirs = await withRoles(other, [['admin', 'sandbox']]);
    assertOutcome(await t.anonymous.get(`${base}/PractitionerRole/${mine.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const outsider = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await outsider.get(`${base}/PractitionerRole/${mine.id}`), 403, 'ACCESS_DENIED');
    assertOutcome(await outsider.get(`${base}/PractitionerRole`), 403, 'ACCESS_DENIED');
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid'])
      assertOutcome(await t.api.get(`${base}/PractitionerRole/${id}`), 404, 'PRACTITIONER_ROLE_NOT_FOUND');
    assert.deepEqual(idsOf((await t.api.get(`${base}/PractitionerRole?practitioner=${theirs.id}`)).body), []);
    assertOutcome(await t.api.get(`${base}/PractitionerRole?_count=-1`), 400, 'VALIDATION_ERROR');

    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    assert.deepEqual(
      (log.body.data as { operation: string }[]).filter((record) => record.operation.includes('PractitionerRole')),
      [],
    );
  });
});
