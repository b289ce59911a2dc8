import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { evalFhirPath } from '@medplum/core';
import { demoFormationPath } from '../../cli/bootstrap.ts';
import { seedInstance } from '../../cli/demo-seed.ts';
import { systemContext } from '../../http/context.ts';
import {
  fhirBase,
  profile,
  profileName,
  US_CORE_VERSION,
  type UsCoreCapabilityStatement,
  usCoreErrors,
  usCoreSearchParameter,
  usCoreServer,
} from '../../test/fhir.ts';
import { createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * Cairn against US Core 6.1.0's server CapabilityStatement (the test data in src/test/us-core/):
 * every type Cairn serves that US Core profiles has US Core's SHALL searches and combinations, and
 * over the demo data each of them, with values read from the resources themselves (dates with each
 * comparator), finds what it should, every resource answered valid against its 6.1.0 profile.
 * Generic over Cairn's own CapabilityStatement: a type served later is checked when it appears.
 */

const app = await startApp();

const US_CORE_SERVER = `http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server|${US_CORE_VERSION}`;
const EXPECTATION = 'http://hl7.org/fhir/StructureDefinition/capabilitystatement-expectation';
const COMBINATION = 'http://hl7.org/fhir/StructureDefinition/capabilitystatement-search-parameter-combination';

type UsCoreResource = UsCoreCapabilityStatement['rest'][number]['resource'][number];

interface CairnResource {
  type: string;
  supportedProfile?: string[];
  interaction: { code: string }[];
  searchParam?: { name: string; type: string }[];
}

interface Bundle {
  entry?: { resource: Resource; search?: { mode: string } }[];
  link: { relation: string; url: string }[];
}

type Resource = { resourceType: string; id: string } & Record<string, unknown>;

const expectationOf = (element: { extension?: { url: string; valueCode?: string }[] }) =>
  element.extension?.find((extension) => extension.url === EXPECTATION)?.valueCode;

/** SHALL parameters over elements Cairn holds for none of the type's resources (docs/fhir.md says why). */
const NOT_HELD: Record<string, string[]> = { Organization: ['address'], Location: ['address'], PractitionerRole: ['specialty'] };

/** A US Core type's searches a server SHALL serve: each SHALL parameter alone, then each SHALL combination. */
function shallSearches(usCore: UsCoreResource): string[][] {
  const single = (usCore.searchParam ?? []).filter((param) => expectationOf(param) === 'SHALL').map((param) => [param.name]);
  const combinations = (usCore.extension ?? [])
    .filter((extension) => extension.url === COMBINATION && expectationOf(extension) === 'SHALL')
    .map((extension) =>
      (extension.extension ?? []).filter((part) => part.url === 'required').map((part) => part.valueString as string),
    );
  return [...single, ...combinations];
}

const usCoreTypes: Map<string, UsCoreResource> = new Map(
  usCoreServer().rest[0]!.resource.map((resource) => [resource.type, resource]),
);

async function cairnMetadata(t: TestTenant) {
  const metadata = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
  return { metadata, resources: metadata.rest[0].resource as CairnResource[] };
}

/** The profile a resource is checked against: the one it names (an Observation's), or its type's first. */
const profileOf = (resource: Resource, claimed: string) =>
  profileName((resource.meta as { profile?: string[] } | undefined)?.profile?.[0] ?? claimed);

describe('US Core 6.1.0: the server CapabilityStatement', () => {
  test("every type Cairn serves that US Core lists has its SHALL searches and combinations; instantiates and profiles are 6.1.0's", async () => {
    const t = await createTestTenant(app);
    const { metadata, resources } = await cairnMetadata(t);
    assert.ok(metadata.instantiates.includes(US_CORE_SERVER), JSON.stringify(metadata.instantiates));
    const checked = [];
    for (const resource of resources) {
      const usCore = usCoreTypes.get(resource.type);
      if (!usCore || !resource.interaction.some((interaction) => interaction.code === 'search-type')) continue;
      checked.push(resource.type);
      // The profiles claimed are ones US Core profiles the type with, at 6.1.0 (an Observation has several).
      assert.ok((resource.supportedProfile?.length ?? 0) >= 1, `${resource.type} claims its US Core profile`);
      for (const claimed of resource.supportedProfile ?? []) {
        const [url, version] = claimed.split('|');
        assert.equal(version, US_CORE_VERSION, resource.type);
        assert.ok(usCore.supportedProfile?.includes(url!), `${url} is a US Core profile of ${resource.type}`);
      }
      const served = new Set((resource.searchParam ?? []).map((param) => param.name));
      for (const search of shallSearches(usCore)) {
        for (const name of search) assert.ok(served.has(name), `${resource.type}: SHALL ${search.join('+')} needs ${name}`);
      }
      // Each served parameter of US Core's is of the type its SearchParameter says.
      for (const param of resource.searchParam ?? []) {
        const theirs: { type: string } | undefined = usCore.searchParam?.find((candidate) => candidate.name === param.name);
        if (theirs) assert.equal(param.type, theirs.type, `${resource.type}.${param.name}`);
      }
    }
    for (const type of ['Patient', 'Practitioner', 'Encounter', 'CareTeam', 'CarePlan', 'Goal', 'DocumentReference']) {
      assert.ok(checked.includes(type), `${type} is checked`);
    }
    assert.ok(checked.includes('QuestionnaireResponse'), 'QuestionnaireResponse is checked');
  });
});

/** Comparators Cairn's date parameters take (src/http/fhir.ts dateParam); US Core also names `ap`, which Cairn does not serve. */
const SERVED_COMPARATORS = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb'];

/**
 * A day, shifted so that the resource the day came from matches (`matches`) or does not (`misses`)
 * a comparator's value: `gt` the day before matches it, `gt` its own day misses it.
 */
const DAY_SHIFT: Record<string, { matches: number; misses: number }> = {
  eq: { matches: 0, misses: 1 },
  ne: { matches: -36_500, misses: 0 },
  gt: { matches: -1, misses: 0 },
  sa: { matches: -1, misses: 0 },
  ge: { matches: 0, misses: 1 },
  lt: { matches: 1, misses: 0 },
  eb: { matches: 1, misses: 0 },
  le: { matches: 0, misses: -1 },
};

const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The element a search parameter reads in a resource, by its SearchParameter's expression. */
function elementsOf(resource: Resource, usCore: UsCoreResource, name: string): unknown[] {
  if (name === '_id') return [resource.id];
  const definition = usCore.searchParam?.find((param) => param.name === name)?.definition;
  const expression = definition && usCoreSearchParameter(definition)?.expression;
  assert.ok(expression, `${resource.resourceType}.${name} has an expression`);
  return evalFhirPath(expression, resource);
}

type Element = Record<string, unknown>;

/** A search value that names the element (a token's `system|code`, a reference, a name's family, a date's day). */
function searchValueOf(element: unknown, type: string): string | undefined {
  if (typeof element === 'string') return type === 'date' ? element.slice(0, 10) : element;
  if (element === null || typeof element !== 'object') return undefined;
  const value = element as Element;
  const coding = (value.coding as Element[] | undefined)?.[0] ?? (value.code ? value : undefined);
  if (type === 'token' && coding?.code) return coding.system ? `${coding.system}|${coding.code}` : String(coding.code);
  if (type === 'token' && value.value) return value.system ? `${value.system}|${value.value}` : String(value.value);
  if (type === 'reference' && typeof value.reference === 'string') return value.reference;
  if (type === 'string') return (value.family as string | undefined) ?? (value.given as string[] | undefined)?.[0];
  if (type === 'date' && typeof value.start === 'string') return value.start.slice(0, 10);
  return undefined;
}

interface Query {
  query: string;
  /** Whether the resource the values came from is among its matches. */
  matches: boolean;
}

/**
 * Each query a search makes of one resource's values: one per comparator of each date parameter in
 * it, with a day the resource matches and one it misses.
 */
function queriesOf(resource: Resource, usCore: UsCoreResource, search: string[]): Query[] {
  const parts: Query[][] = [];
  for (const name of search) {
    const param = usCore.searchParam?.find((candidate) => candidate.name === name);
    assert.ok(param, `${resource.resourceType}.${name} is US Core's`);
    const value = elementsOf(resource, usCore, name)
      .map((element) => searchValueOf(element, param.type))
      .find(Boolean);
    if (!value) return [];
    if (param.type !== 'date') {
      parts.push([{ query: `${name}=${encodeURIComponent(value)}`, matches: true }]);
      continue;
    }
    const comparators = usCoreSearchParameter(param.definition)?.comparator ?? ['eq'];
    parts.push(
      comparators
        .filter((comparator) => SERVED_COMPARATORS.includes(comparator))
        .flatMap((comparator) =>
          [true, false].map((matches) => {
            const shift = DAY_SHIFT[comparator]!;
            return { query: `${name}=${comparator}${shiftDay(value, matches ? shift.matches : shift.misses)}`, matches };
          }),
        ),
    );
  }
  // One query per date comparator, the other parameters alike in each.
  return parts.reduce<Query[]>(
    (queries, options) =>
      queries.flatMap((done) =>
        options.map((option) => ({ query: `${done.query}&${option.query}`, matches: done.matches && option.matches })),
      ),
    [{ query: '_count=1000', matches: true }],
  );
}

/** Every resource of a type, page by page. */
async function readAll(t: TestTenant, type: string): Promise<Resource[]> {
  const all: Resource[] = [];
  let url: string | undefined = `${fhirBase(t)}/${type}?_count=200`;
  while (url) {
    const page: { status: number; text: string; body: Bundle } = await t.api.get(url);
    assert.equal(page.status, 200, page.text);
    all.push(...(page.body.entry ?? []).map((entry) => entry.resource));
    const next = page.body.link.find((link) => link.relation === 'next');
    url = next ? new URL(next.url).pathname + new URL(next.url).search : undefined;
  }
  return all;
}

/** What the demo does not seed, added over the API for one of its patients: a goal, a document, an assessment record. */
async function addRecords(t: TestTenant, patientId: string) {
  const patient = `${t.base}/patients/${patientId}`;
  assert.equal((await t.api.get(`${patient}/care-plan`)).status, 200);
  const goal = await t.api.post(`${patient}/care-plan/goals`, { goalTemplateName: 'lower-hba1c' });
  assert.equal(goal.status, 201, goal.text);
  const document = await t.api.post(`${patient}/document-summary`, { type: 'lab-report', lab: 'Demo lab' });
  assert.equal(document.status, 201, document.text);
  const record = await t.api.post(`${patient}/assessment-records`, { assessmentName: 'phq-2' });
  assert.equal(record.status, 201, record.text);
  const answers = await t.api.put(`${patient}/assessment-records/${record.body.id}/answers`, {
    '_phq-2__interest': 'SEVERAL_DAYS',
  });
  assert.equal(answers.status, 200, answers.text);
}

/**
 * Must-support elements of a profile no resource of the demo holds, because Cairn keeps no data for
 * them: each is in docs/fhir.md's mapping of the profile, with why.
 */
const NOT_HELD_MUST_SUPPORT: Record<string, string[]> = {
  'us-core-practitioner': ['address'],
  'us-core-organization': ['address'],
  'us-core-practitionerrole': ['specialty', 'location', 'endpoint'],
  'us-core-location': ['telecom', 'address'],
  'us-core-goal': ['target'],
  'us-core-encounter': ['reasonCode', 'reasonReference', 'hospitalization'],
  'us-core-documentreference': ['context'],
  // A blood pressure's values are its components; why a value is absent, only when one is.
  'us-core-blood-pressure': ['value[x]', 'dataAbsentReason'],
  'us-core-observation-lab': ['dataAbsentReason', 'specimen'],
  'us-core-condition-problems-health-concerns': ['verificationStatus', 'abatement[x]'],
  'us-core-allergyintolerance': ['verificationStatus', 'reaction'],
  'us-core-medicationrequest': ['category', 'encounter', 'dispenseRequest'],
};

/** A profile's must-support elements on the resource itself (`name`, `value[x]`): slices and extensions left to the docs. */
function mustSupportsOf(name: string): string[] {
  const elements = (profile(name).snapshot?.element ?? []) as { id?: string; path: string; mustSupport?: boolean }[];
  return elements
    .filter((element) => element.mustSupport && !element.id?.includes(':') && element.path.split('.').length === 2)
    .map((element) => element.path.split('.')[1]!)
    .filter((element) => element !== 'extension');
}

/** Whether a resource has an element (`value[x]`: any of its types), or says why not (data-absent-reason). */
function holds(resource: Resource, element: string): boolean {
  const keys = element.endsWith('[x]')
    ? Object.keys(resource).filter((key) => key.startsWith(element.slice(0, -3)) && /^[A-Z]/.test(key.slice(element.length - 3)))
    : [element];
  return keys.some((key) => resource[key] !== undefined || resource[`_${key}`] !== undefined);
}

describe('US Core 6.1.0: the SHALL searches over the demo data', () => {
  test('each SHALL search and combination of each served type finds its resource, dates with each comparator; every answer validates', async () => {
    const formation = JSON.parse(fs.readFileSync(demoFormationPath, 'utf8'));
    const t = await createTestTenant(app, formation, { adminRole: 'administrator' });
    await seedInstance(systemContext(app.services, t.tenant, t.instance));
    const { resources } = await cairnMetadata(t);
    const [firstPatient] = await readAll(t, 'Patient');
    assert.ok(firstPatient, 'the demo has patients');
    await addRecords(t, firstPatient.id);

    const ran: string[] = [];
    const held = new Map<string, Resource[]>();
    for (const resource of resources) {
      const usCore = usCoreTypes.get(resource.type);
      const profile = resource.supportedProfile?.[0];
      // Read by id only (Provenance, US Core's SHALL): provenance.test reads it.
      if (!usCore || !profile || !resource.interaction.some((interaction) => interaction.code === 'search-type')) continue;
      const all = await readAll(t, resource.type);
      assert.ok(all.length > 0, `the demo data has ${resource.type}`);
      for (const item of all) assert.deepEqual(usCoreErrors(item, profileOf(item, profile)), [], `${resource.type}/${item.id}`);
      for (const item of all) held.set(profileOf(item, profile), [...(held.get(profileOf(item, profile)) ?? []), item]);
      for (const search of shallSearches(usCore)) {
        // The first resource holding a value for each parameter; none holding them all is a search with no data.
        const sample: Resource | undefined = all.find(
          (candidate: Resource): boolean => queriesOf(candidate, usCore, search).length > 0,
        );
        // A SHALL search over an element Cairn holds for no resource is served and finds none (docs/fhir.md).
        if (!sample && NOT_HELD[resource.type]?.some((name) => search.includes(name))) {
          const none = await t.api.get(`${fhirBase(t)}/${resource.type}?${search.map((name) => `${name}=x`).join('&')}`);
          assert.equal(none.status, 200, none.text);
          assert.equal(none.body.entry, undefined, `${resource.type}?${search.join('+')} finds none`);
          continue;
        }
        assert.ok(sample, `${resource.type}: some resource has values for ${search.join('+')}`);
        for (const { query, matches } of queriesOf(sample, usCore, search) as Query[]) {
          const answer: { status: number; text: string; body: Bundle } = await t.api.get(
            `${fhirBase(t)}/${resource.type}?${query}`,
          );
          assert.equal(answer.status, 200, `${resource.type}?${query}: ${answer.text}`);
          const found = (answer.body.entry ?? []).map((entry) => entry.resource);
          assert.equal(
            found.some((match) => match.id === sample.id),
            matches,
            `${resource.type}?${query} ${matches ? 'finds' : 'leaves out'} ${resource.type}/${sample.id}`,
          );
          for (const match of found)
            assert.deepEqual(usCoreErrors(match, profileOf(match, profile)), [], `${resource.type}/${match.id}`);
          if (matches) ran.push(`${resource.type}?${query.replace('_count=1000&', '')}`);
          if (process.env.US_CORE_SEARCHES) console.log(ran.at(-1), found.length);
        }
      }
    }
    // The combinations the issue names are among those run, dates with US Core's comparators.
    for (const expected of [
      /^Encounter\?date=gt.+&patient=/,
      /^Encounter\?date=le.+&patient=/,
      /^DocumentReference\?patient=.+&category=.+&date=lt/,
    ]) {
      assert.ok(
        ran.some((query) => expected.test(query)),
        `${expected} among ${ran.length} searches`,
      );
    }
    for (const type of ['CareTeam', 'CarePlan', 'QuestionnaireResponse', 'Goal', 'Practitioner', 'Patient']) {
      assert.ok(
        ran.some((query) => query.startsWith(`${type}?`)),
        `${type} searched`,
      );
    }
    // Every must-support element of each profile the demo's resources claim is in some resource,
    // but those Cairn holds no data for (docs/fhir.md says so for each).
    const missing = Object.fromEntries(
      [...held].map(([name, items]) => [
        name,
        mustSupportsOf(name).filter((element) => !items.some((item) => holds(item, element))),
      ]),
    );
    assert.deepEqual(missing, Object.fromEntries([...held.keys()].map((name) => [name, NOT_HELD_MUST_SUPPORT[name] ?? []])));
  });
});
