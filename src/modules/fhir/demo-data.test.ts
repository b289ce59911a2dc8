import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { demoFormationPath } from '../../cli/bootstrap.ts';
import { seedInstance } from '../../cli/demo-seed.ts';
import { systemContext } from '../../http/context.ts';
import { errorsOf, fhirBase, profileName, usCoreErrors } from '../../test/fhir.ts';
import { createTestTenant, startApp } from '../../test/harness.ts';

/**
 * What the FHIR API answers for the demo's data (`cairn seed demo`: coordinators, forty patients
 * with care teams, a week of appointments, encounters with their parts), every resource of every
 * type served, read through its searches to the last page: each validates with @medplum/core,
 * against its US Core 6.1.0 profile where it has one.
 */

const app = await startApp();

interface Bundle {
  entry?: { resource: { id: string } }[];
  link: { relation: string; url: string }[];
}

describe('FHIR R4 over the demo data', () => {
  test('every resource of every type served validates, read page by page to the end', async () => {
    const formation = JSON.parse(fs.readFileSync(demoFormationPath, 'utf8'));
    const t = await createTestTenant(app, formation, { adminRole: 'administrator' });
    await seedInstance(systemContext(app.services, t.tenant, t.instance));
    const metadata = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
    const served = (
      metadata.rest[0].resource as { type: string; supportedProfile?: string[]; interaction: { code: string }[] }[]
    ).filter((resource) => resource.interaction.some((interaction) => interaction.code === 'search-type'));
    const types = served.map((resource) => resource.type);
    // Each type against the US Core profile the CapabilityStatement claims for it (the others: base R4).
    const PROFILES = Object.fromEntries(
      served.flatMap((resource) =>
        resource.supportedProfile ? [[resource.type, profileName(resource.supportedProfile[0]!)]] : [],
      ),
    );
    const counts: Record<string, number> = {};
    for (const type of types) {
      let url: string | undefined = `${fhirBase(t)}/${type}?_count=50`;
      counts[type] = 0;
      while (url) {
        const page: { status: number; text: string; body: Bundle } = await t.api.get(url);
        assert.equal(page.status, 200, page.text);
        for (const { resource } of page.body.entry ?? []) {
          // A resource naming its profile (an Observation: vital signs or lab) is checked against that one.
          const named = (resource as { meta?: { profile?: string[] } }).meta?.profile?.[0];
          const profile = named ? profileName(named) : PROFILES[type];
          assert.deepEqual(profile ? usCoreErrors(resource, profile) : errorsOf(resource), [], `${type}/${resource.id}`);
          counts[type] += 1;
        }
        const next = page.body.link.find((link) => link.relation === 'next');
        url = next ? new URL(next.url).pathname + new URL(next.url).search : undefined;
      }
    }
    // The seed's own: its coordinators (and the test's admin), forty patients and their teams, encounters and appointments.
    assert.equal(counts.Patient, 40);
    assert.equal(counts.CareTeam, 40);
    assert.ok((counts.Practitioner ?? 0) >= 2, JSON.stringify(counts));
    assert.ok((counts.Appointment ?? 0) > 0 && (counts.Encounter ?? 0) > 0, JSON.stringify(counts));
  });
});
