import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { demoFormationPath } from '../../cli/bootstrap.ts';
import { seedInstance } from '../../cli/demo-seed.ts';
import type { Formation } from '../../formation/schemas.ts';
import { systemContext } from '../../http/context.ts';
import { assertOutcome, fhirBase, idsOf, profileName, usCoreErrors } from '../../test/fhir.ts';
import { createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * The clinical data a tenant keeps in its CDTs, as US Core 6.1.0 resources (docs/fhir.md "Clinical
 * data from CDTs"): the demo formation declares its vitals a blood pressure, an HbA1c a lab result,
 * a problem list, allergies and medications; the demo seed fills them. Each is read and searched
 * by its SHALL searches, validated against its profile, refused where the caller may not read it,
 * and a formation mapping a field of the wrong type is refused when published.
 */

// No settle time: the seed's last records are written moments before the $export, whose
// transactionTime would otherwise stop a second short of them on PostgreSQL (docs/fhir-bulk-export.md).
const app = await startApp({}, { env: { CAIRN_EXPORT_SETTLE_MS: '0' } });
const demoFormation = (): Formation => JSON.parse(fs.readFileSync(demoFormationPath, 'utf8'));

/** Errors of a resource against the profile it names (an Observation's is its CDT's). */
const profileErrors = (resource: Record<string, any>) => usCoreErrors(resource, profileName(resource.meta.profile[0]));

interface Bundle {
  entry?: { resource: Record<string, any> & { id: string }; search: { mode: string } }[];
}

let seeded: { t: TestTenant; patients: string[] } | undefined;
/** A tenant of the demo formation with the demo's records: its patients' ids in seed order. */
async function demo() {
  if (seeded) return seeded;
  const t = await createTestTenant(app, demoFormation(), { adminRole: 'administrator' });
  await seedInstance(systemContext(app.services, t.tenant, t.instance));
  const patients = (await t.api.get(`${fhirBase(t)}/Patient?_count=100`)).body.entry.map((entry: any) => entry.resource.id);
  seeded = { t, patients };
  return seeded;
}

async function search(t: TestTenant, query: string): Promise<Bundle> {
  const response = await t.api.get(`${fhirBase(t)}/${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

/** Every match of a search, each valid against its profile. */
async function matches(t: TestTenant, query: string) {
  const bundle = await search(t, query);
  const resources = (bundle.entry ?? []).filter((entry) => entry.search.mode === 'match').map((entry) => entry.resource);
  for (const resource of resources) assert.deepEqual(profileErrors(resource), [], `${query}: ${JSON.stringify(resource)}`);
  return resources;
}

describe('FHIR R4: clinical data from CDTs (US Core 6.1.0)', () => {
  test('blood pressures and lab results are Observations, by patient and category, code, date', async () => {
    const { t } = await demo();
    const all = await matches(t, 'Observation?_count=1000');
    const patient = String(all[0]!.subject.reference).slice('Patient/'.length);
    const vitals = await matches(t, `Observation?patient=${patient}&category=vital-signs`);
    assert.equal(vitals.length, 2);
    for (const bp of vitals) {
      assert.equal(bp.meta.profile[0], 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-blood-pressure');
      assert.equal(bp.code.coding[0].code, '85354-9');
      assert.deepEqual(
        bp.component.map((component: any) => [component.code.coding[0].code, component.valueQuantity.unit]),
        [
          ['8480-6', 'mm[Hg]'],
          ['8462-4', 'mm[Hg]'],
        ],
      );
    }
    const system = 'http://terminology.hl7.org/CodeSystem/observation-category';
    assert.equal((await matches(t, `Observation?patient=Patient/${patient}&category=${system}|vital-signs`)).length, 2);
    assert.equal((await matches(t, `Observation?patient=${patient}&category=laboratory`)).length, 1);
    const lab = (await matches(t, `Observation?patient=${patient}&code=http://loinc.org|4548-4`))[0]!;
    assert.equal(lab.valueQuantity.unit, '%');
    assert.equal((await matches(t, `Observation?patient=${patient}&code=http://snomed.info/sct|4548-4`)).length, 0);

    // Dates with each comparator, from the records' own dates.
    const [older, newer] = vitals.map((bp) => bp.effectiveDateTime as string).sort();
    const byDate = async (date: string) =>
      idsOf(await search(t, `Observation?patient=${patient}&category=vital-signs&date=${encodeURIComponent(date)}`));
    const id = (at: string) => vitals.find((bp) => bp.effectiveDateTime === at)!.id;
    assert.deepEqual(await byDate(`gt${older}`), [id(newer!)]);
    assert.deepEqual(await byDate(`lt${newer}`), [id(older!)]);
    assert.deepEqual(
      await byDate(`ge${older}`),
      idsOf({ entry: vitals.map((resource) => ({ resource, search: { mode: 'match' } })) }),
    );
    assert.deepEqual(await byDate(`le${older}`), [id(older!)]);
    assert.deepEqual(await byDate(newer!.slice(0, 10)), [id(newer!)]);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Observation?patient=${patient}&date=soon`), 400, 'VALIDATION_ERROR');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Observation?patient=${patient}&category=bogus`), 400, 'VALIDATION_ERROR');

    // Who wrote them: their Provenance, from the audit log.
    const withProvenance = await search(t, `Observation?patient=${patient}&category=vital-signs&_revinclude=Provenance:target`);
    const provenance = (withProvenance.entry ?? [])
      .filter((entry) => entry.search.mode === 'include')
      .map((entry) => entry.resource);
    assert.deepEqual(
      provenance.map((resource) => resource.target[0].reference).sort(),
      vitals.map((bp) => `Observation/${bp.id}`).sort(),
    );
    const read = await t.api.get(`${fhirBase(t)}/Provenance/${provenance[0]!.id}`);
    assert.equal(read.status, 200, read.text);

    // By id, and by POST.
    const byId = await t.api.get(`${fhirBase(t)}/Observation/${lab.id}`);
    assert.equal(byId.status, 200, byId.text);
    assert.deepEqual(byId.body, lab);
    const posted = await t.api.request('POST', `${fhirBase(t)}/Observation/_search`, `patient=${patient}&category=vital-signs`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(idsOf(posted.body), idsOf(await search(t, `Observation?patient=${patient}&category=vital-signs`)));
  });

  test('problems are Conditions, allergies AllergyIntolerances, medications MedicationRequests, by their SHALL searches', async () => {
    const { t, patients } = await demo();
    // The seed gives every third patient a problem and a medication, every fourth an allergy.
    const patient = patients[0]!;
    const conditions = await matches(t, 'Condition?_count=100');
    assert.ok(conditions.length > 0);
    const withProblem = String(conditions[0]!.subject.reference).slice('Patient/'.length);
    const problems = await matches(t, `Condition?patient=${withProblem}&category=problem-list-item`);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.clinicalStatus.coding[0].code, 'active');
    assert.equal(problems[0]!.code.coding[0].system, 'http://snomed.info/sct');
    assert.equal((await matches(t, `Condition?patient=${withProblem}`)).length, 1);
    assert.equal((await matches(t, `Condition?patient=${withProblem}&category=health-concern`)).length, 0);
    assert.equal((await matches(t, `Condition?patient=${withProblem}&clinical-status=resolved`)).length, 0);
    assert.equal((await matches(t, `Condition?patient=${withProblem}&onset-date=le${problems[0]!.onsetDateTime}`)).length, 1);

    const allergies = await matches(t, 'AllergyIntolerance?_count=100');
    assert.ok(allergies.length > 0);
    const withAllergy = String(allergies[0]!.patient.reference).slice('Patient/'.length);
    assert.equal((await matches(t, `AllergyIntolerance?patient=${withAllergy}`)).length, 1);
    assert.equal((await matches(t, `AllergyIntolerance?patient=${withAllergy}&clinical-status=active`)).length, 1);

    const medications = await matches(t, 'MedicationRequest?_count=100');
    assert.ok(medications.length > 0);
    const withMedication = String(medications[0]!.subject.reference).slice('Patient/'.length);
    assert.equal((await matches(t, `MedicationRequest?patient=${withMedication}&intent=order`)).length, 1);
    assert.equal((await matches(t, `MedicationRequest?patient=${withMedication}&intent=order&status=active`)).length, 1);
    assert.equal((await matches(t, `MedicationRequest?patient=${withMedication}&intent=plan`)).length, 0);
    assert.equal(medications[0]!.medicationCodeableConcept.coding[0].system, 'http://www.nlm.nih.gov/research/umls/rxnorm');
    assertOutcome(await t.api.get(`${fhirBase(t)}/MedicationRequest?patient=${patient}&intent=wish`), 400, 'VALIDATION_ERROR');
  });

  test("a CDT the formation does not declare is not served; CDT_READ is needed; another tenant's records are 404; reads are in the access log", async () => {
    const { t, patients } = await demo();
    const patient = patients[0]!;
    const social = await t.api.post(`${t.base}/patients/${patient}/cdts/social-needs`, { 'cdtf-housing': true });
    assert.equal(social.status, 201, social.text);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Observation/${social.body.id}`), 404, 'DT_RECORD_NOT_FOUND');
    const observation = (await matches(t, `Observation?patient=${patient}&category=vital-signs`))[0]!;

    const other = await createTestTenant(app, demoFormation(), { adminRole: 'administrator' });
    assertOutcome(await other.api.get(`${fhirBase(other)}/Observation/${observation.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(idsOf(await search(other, `Observation?patient=${patient}`)), []);

    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await patientReader.get(`${fhirBase(t)}/Observation?patient=${patient}`), 403, 'ACCESS_DENIED');
    assertOutcome(await patientReader.get(`${fhirBase(t)}/Condition/${observation.id}`), 403, 'ACCESS_DENIED');
    const anonymous = await t.anonymous.get(`${fhirBase(t)}/Observation?patient=${patient}`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.resourceType, 'OperationOutcome');

    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const reads = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/Observation'));
    assert.ok(reads.some((record) => record.resourceType === 'CDT_RECORD' && record.patientIds.includes(patient)));
  });

  test("$export writes them, each in its type's file, as their searches show them", async () => {
    const { t } = await demo();
    const started = await t.api.request(
      'GET',
      `${fhirBase(t)}/$export?_type=Observation,Condition,AllergyIntolerance,MedicationRequest`,
      undefined,
      {
        prefer: 'respond-async',
        accept: 'application/fhir+json',
      },
    );
    assert.equal(started.status, 202, started.text);
    await app.jobs.drain();
    const status = await t.api.get(new URL(String(started.headers['content-location'])).pathname);
    assert.equal(status.status, 200, status.text);
    const exported: Record<string, string[]> = {};
    for (const file of status.body.output as { type: string; url: string }[]) {
      const lines = (await t.api.get(new URL(file.url).pathname)).text.trim().split('\n');
      const resources = lines.map((line) => JSON.parse(line));
      for (const resource of resources) assert.deepEqual(profileErrors(resource), [], `${file.type}/${resource.id}`);
      exported[file.type] = [...(exported[file.type] ?? []), ...resources.map((resource) => resource.id)].sort();
    }
    for (const type of ['Observation', 'Condition', 'AllergyIntolerance', 'MedicationRequest']) {
      assert.deepEqual(exported[type], idsOf(await search(t, `${type}?_count=1000`)), type);
    }
  });

  test('the CapabilityStatement lists the resources and their searches', async () => {
    const { t } = await demo();
    const metadata = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
    const byType = new Map((metadata.rest[0].resource as any[]).map((resource) => [resource.type, resource]));
    const names = (type: string) => byType.get(type).searchParam.map((param: { name: string }) => param.name);
    for (const name of ['patient', 'category', 'code', 'date', 'status']) assert.ok(names('Observation').includes(name), name);
    for (const name of ['patient', 'category', 'code', 'clinical-status', 'onset-date'])
      assert.ok(names('Condition').includes(name), name);
    for (const name of ['patient', 'clinical-status']) assert.ok(names('AllergyIntolerance').includes(name), name);
    for (const name of ['patient', 'intent', 'status', 'authoredon']) assert.ok(names('MedicationRequest').includes(name), name);
  });

  test('a formation mapping a field of the wrong type is refused when published, naming the field', async () => {
    const t = await createTestTenant(app, demoFormation(), { adminRole: 'administrator' });
    const formation = demoFormation();
    const hba1c = formation.cdts!.find((cdt) => cdt.name === 'hba1c')!;
    hba1c.fhir!.value = { field: 'cdtf-collected-on', unit: '%' };
    hba1c.fhir!.date = { field: 'cdtf-nowhere' };
    const problems = formation.cdts!.find((cdt) => cdt.name === 'problems')!;
    problems.fhir!.status = { field: 'cdtf-problem' };
    const put = await t.api.put(`${t.base}/formations/draft`, formation);
    assert.equal(put.status, 200, put.text);
    const publish = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(publish.status, 400, publish.text);
    const index = (name: string) => formation.cdts!.findIndex((cdt) => cdt.name === name);
    const errors = publish.body[0].details.errors as { path: string; message: string }[];
    assert.deepEqual(
      errors.map((error) => error.path),
      [
        `cdts.${index('hba1c')}.fhir.value.field`,
        `cdts.${index('hba1c')}.fhir.date.field`,
        `cdts.${index('problems')}.fhir.status.field`,
      ],
    );
    assert.match(errors[0]!.message, /"cdtf-collected-on" is a date field/);
    assert.match(errors[1]!.message, /"cdtf-nowhere" is not a field of this CDT/);
  });
});
