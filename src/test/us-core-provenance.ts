import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * US Core 6.1.0 Provenance's checks, by hand (test code): @medplum/core cannot parse its
 * StructureDefinition ("Invalid slice start before discriminator"), so its mandatory elements are
 * read from that StructureDefinition (the committed package, us-core/us-core-6.1.0.json.gz) and
 * checked here, each slice's (ProvenanceAuthor, ProvenanceTransmitter) on the agents its pattern
 * picks; with its invariant provenance-1 and the types `who` may name.
 */

interface ElementDefinition {
  id: string;
  path: string;
  min?: number;
  sliceName?: string;
  patternCodeableConcept?: { coding: { system: string; code: string }[] };
  type?: { code: string; targetProfile?: string[] }[];
}

const PROFILE = 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-provenance';

const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL('./us-core/us-core-6.1.0.json.gz', import.meta.url))).toString('utf8'),
) as { entry: { resource: { url?: string; snapshot?: { element: ElementDefinition[] } } }[] };
const elements = bundle.entry.find((entry) => entry.resource.url === PROFILE)?.resource.snapshot?.element ?? [];
if (elements.length === 0) throw new Error('the US Core 6.1.0 package holds no us-core-provenance');

type Json = Record<string, unknown>;

/** The values at a path below a resource or element (`agent.who`), arrays flattened. */
function valuesAt(from: unknown, path: string[]): unknown[] {
  if (path.length === 0) return [from];
  const [key, ...rest] = path as [string, ...string[]];
  const child = (from as Json | undefined)?.[key];
  if (child === undefined) return [];
  return (Array.isArray(child) ? child : [child]).flatMap((item) => valuesAt(item, rest));
}

/** Whether a CodeableConcept carries each coding of a pattern. */
const matchesPattern = (concept: unknown, pattern: NonNullable<ElementDefinition['patternCodeableConcept']>) =>
  pattern.coding.every((wanted) =>
    valuesAt(concept, ['coding']).some((coding) => {
      const { system, code } = coding as Json;
      return system === wanted.system && code === wanted.code;
    }),
  );

/**
 * Mandatory elements (min ≥ 1), each checked in every parent present: the resource's own
 * (`Provenance.target`), and a slice's children in the agents its `type` pattern picks.
 */
function missingMandatory(resource: Json): string[] {
  const missing: string[] = [];
  for (const element of elements) {
    if ((element.min ?? 0) < 1 || element.sliceName) continue;
    const [, ...rest] = element.id.split('.');
    const sliced = rest.findIndex((part) => part.includes(':'));
    // Not in a slice: in every parent there is (entity.role only where an entity is).
    if (sliced < 0) {
      const parents = valuesAt(resource, rest.slice(0, -1));
      for (const parent of parents) {
        if (valuesAt(parent, [rest.at(-1)!]).length === 0) missing.push(`${element.id}: required`);
      }
      continue;
    }
    const [sliceParent, sliceName] = rest[sliced]!.split(':') as [string, string];
    const patternOf = elements.find((candidate) => candidate.id === `${element.id.split(':')[0]}:${sliceName}.type`);
    const pattern = patternOf?.patternCodeableConcept;
    const members = valuesAt(resource, [...rest.slice(0, sliced), sliceParent]).filter(
      (member) => pattern && matchesPattern((member as Json).type, pattern),
    );
    for (const member of members) {
      if (valuesAt(member, rest.slice(sliced + 1)).length === 0) missing.push(`${element.id}: required in the slice`);
    }
  }
  return missing;
}

/** The resource types an agent's `who` may name (the profile's targetProfiles, by their last part's type). */
const WHO_TYPES = new Set(['Organization', 'Practitioner', 'Patient', 'PractitionerRole', 'RelatedPerson', 'Device']);

const referencedType = (who: Json) =>
  typeof who.reference === 'string' ? who.reference.split('/')[0] : typeof who.type === 'string' ? who.type : undefined;

/** provenance-1 and the `who` targets: what the StructureDefinition says in its invariant and types. */
function agentErrors(resource: Json): string[] {
  return valuesAt(resource, ['agent']).flatMap((agent, index) => {
    const { who, onBehalfOf } = agent as { who?: Json; onBehalfOf?: Json };
    if (!who) return [];
    const type = referencedType(who);
    const errors: string[] = [];
    if (type !== undefined && !WHO_TYPES.has(type)) errors.push(`agent[${index}].who: ${type} is not a type it may name`);
    if ((type === 'Practitioner' || type === 'Device') && !onBehalfOf) {
      errors.push(`agent[${index}]: provenance-1, onBehalfOf SHALL be present when who is a Practitioner or Device`);
    }
    if (onBehalfOf && referencedType(onBehalfOf) !== 'Organization')
      errors.push(`agent[${index}].onBehalfOf: not an Organization`);
    return errors;
  });
}

/** An instant: a date-time with seconds and a zone (R4's `instant`). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Errors of a resource against US Core 6.1.0 Provenance's own rules (base R4 is the validator's: fhir.ts `usCoreErrors`). */
export function provenanceRuleErrors(resource: unknown): string[] {
  const provenance = resource as Json;
  const recorded = provenance.recorded;
  return [
    ...(provenance.resourceType === 'Provenance' ? [] : ['resourceType: not Provenance']),
    ...missingMandatory(provenance),
    ...agentErrors(provenance),
    ...(typeof recorded === 'string' && !INSTANT.test(recorded) ? ['recorded: not an instant'] : []),
  ];
}
