import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertOutcome, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { createTestInstance, createTestTenant, startApp, testFormation } from '../../test/harness.ts';

/**
 * Organization (the formation area: the tenant and its instance), as docs/fhir.md maps it: every
 * answer validates against US Core 6.1.0 Organization; an instance's FHIR base serves its own
 * instance and its tenant, never another instance or tenant.
 */

const app = await startApp();

const formation = () =>
  testFormation({
    instancePhones: [
      { id: randomUUID(), number: '+14155550100', default: true, label: 'Main line' },
      { id: randomUUID(), number: '+14155550199', capabilities: ['FAX'] },
    ],
  });

describe('FHIR R4: Organization (US Core 6.1.0 Organization)', () => {
  test('the instance, part of its tenant, and the tenant: read, searched, valid', async () => {
    const t = await createTestTenant(app, formation());
    const second = await createTestInstance(t, 'second');
    const base = fhirBase(t);

    const instance = await t.api.get(`${base}/Organization/${t.instance.id}`);
    assert.equal(instance.status, 200, instance.text);
    assert.match(String(instance.headers['content-type']), /^application\/fhir\+json/);
    assert.deepEqual(usCoreErrors(instance.body, 'us-core-organization'), []);
    assert.deepEqual(
      [instance.body.name, instance.body.active, instance.body.partOf, instance.body.telecom],
      [
        'sandbox',
        true,
        { reference: `Organization/${t.tenant.id}` },
        [
          { system: 'phone', value: '+14155550100', use: 'work', rank: 1 },
          { system: 'fax', value: '+14155550199', use: 'work' },
        ],
      ],
    );
    assert.deepEqual(instance.body.identifier, [
      { use: 'usual', system: 'https://cairn.health/fhir/sid/instance-id', value: t.instance.id },
      { use: 'secondary', system: 'https://cairn.health/fhir/sid/instance-name', value: 'sandbox' },
    ]);

    const tenant = await t.api.get(`${base}/Organization/${t.tenant.id}`);
    assert.equal(tenant.status, 200, tenant.text);
    assert.deepEqual(usCoreErrors(tenant.body, 'us-core-organization'), []);
    assert.deepEqual([tenant.body.name, tenant.body.partOf, tenant.body.telecom], [t.tenant.name, undefined, undefined]);

    // Another instance of the tenant is another FHIR server's: not here, but there.
    assertOutcome(await t.api.get(`${base}/Organization/${second.instance.id}`), 404, 'ORGANIZATION_NOT_FOUND');
    assert.equal((await second.api.get(`${fhirBase(second)}/Organization/${second.instance.id}`)).status, 200);
    assert.equal((await second.api.get(`${fhirBase(second)}/Organization/${t.tenant.id}`)).status, 200);

    const search = async (query: string) => {
      const response = await t.api.get(`${base}/Organization${query}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      for (const entry of response.body.entry ?? []) assert.deepEqual(usCoreErrors(entry.resource, 'us-core-organization'), []);
      return idsOf(response.body);
    };
    assert.deepEqual(await search(''), [t.instance.id, t.tenant.id].sort());
    assert.deepEqual(await search('?name=SAND'), [t.instance.id]);
    assert.deepEqual(await search(`?name=${t.tenant.name.slice(0, 4)}`), [t.tenant.id]);
    assert.deepEqual(await search('?name=second'), [], "another instance's name");
    assert.deepEqual(await search(`?_id=${t.tenant.id},${second.instance.id}`), [t.tenant.id]);
    assert.deepEqual(await search('?address=Main'), [], 'Cairn keeps no address: none matches');
    assert.deepEqual(await search('?identifier=sandbox'), [t.instance.id]);
    assert.deepEqual(await search(`?identifier=https://cairn.health/fhir/sid/tenant-id|${t.tenant.id}`), [t.tenant.id]);
    assert.equal((await t.api.get(`${base}/Organization?_summary=count`)).body.total, 2);

    // The CapabilityStatement lists it with US Core's searches.
    const metadata = (await t.anonymous.get(`${base}/metadata`)).body;
    const listed = metadata.rest[0].resource.find((resource: { type: string }) => resource.type === 'Organization');
    assert.equal(
      listed.supportedProfile?.[0] ?? listed.profile,
      'http://hl7.org/fhir/us/core/StructureDefinition/us-core-organization|6.1.0',
    );
    for (const name of ['name', 'address', '_id'])
      assert.ok(
        listed.searchParam.some((param: { name: string }) => param.name === name),
        name,
      );
  });

  test("401 without a token, 403 without FORMATION_READ, 404 for a missing or another tenant's; 400 for a bad parameter; no access record", async () => {
    const t = await createTestTenant(app, formation());
    const other = await createTestTenant(app, formation());
    const base = fhirBase(t);
    assertOutcome(await t.anonymous.get(`${base}/Organization/${t.instance.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const outsider = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await outsider.get(`${base}/Organization/${t.instance.id}`), 403, 'ACCESS_DENIED');
    assertOutcome(await outsider.get(`${base}/Organization`), 403, 'ACCESS_DENIED');
    const reader = await t.apiWith(['FORMATION_READ']);
    assert.equal((await reader.get(`${base}/Organization/${t.instance.id}`)).status, 200);
    for (const id of [other.instance.id, other.tenant.id, randomUUID(), 'not-a-uuid'])
      assertOutcome(await t.api.get(`${base}/Organization/${id}`), 404, 'ORGANIZATION_NOT_FOUND');
    assert.deepEqual(idsOf((await t.api.get(`${base}/Organization?_id=${other.tenant.id},${other.instance.id}`)).body), []);
    assertOutcome(await t.api.get(`${base}/Organization?_count=many`), 400, 'VALIDATION_ERROR');
    assertOutcome(await t.api.get(`${base}/Organization?name=a%01b`), 400, 'VALIDATION_ERROR');

    // The tenant and its instance are not patient data: nothing in the access log.
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    assert.deepEqual(
      (log.body.data as { operation: string }[]).filter((record) => record.operation.includes('Organization')),
      [],
    );
  });
});
