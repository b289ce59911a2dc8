import type { FhirResource } from '../../../http/fhir.ts';

/**
 * What an export walks: each FHIR resource an area declares is one source, read from its own table
 * into files of its own type. A type may have several (Communication from chat, SMS and email):
 * each is walked in turn, and `_type=Communication` takes them all.
 */
export interface Source {
  /** Stable across restarts, so an export resumed by another node finds it again: type, table, records. */
  key: string;
  resource: FhirResource;
}

/** The areas' declarations as sources, in their order: each declaration is one source. */
export function sourcesOf(fhir: ReadonlyMap<string, readonly FhirResource[]>): Source[] {
  const seen = new Map<string, number>();
  return [...fhir.values()].flat().map((resource) => {
    const key = `${resource.type}/${resource.table}/${resource.logAs}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return { key: count === 1 ? key : `${key}#${count}`, resource };
  });
}

/** The resource type a source key names. */
export const typeOfKey = (key: string) => key.slice(0, key.indexOf('/'));

/** Whether a source's records belong to patients: a Patient-level export walks only those. */
export const belongsToPatients = (resource: FhirResource) => !('none' in resource.patient);
