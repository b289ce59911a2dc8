import type { FhirResource } from '../../../http/fhir.ts';
import type { AreaOptions } from '../../../http/plugin.ts';
import type { Services } from '../../../http/services.ts';

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

/**
 * The areas' declarations as sources, in their order; whatever shape the merge hands them in (one
 * resource per type, or several), each declaration is one source.
 */
export function sourcesOf(fhir: AreaOptions['fhir']): Source[] {
  const declared = [...(fhir as { values(): Iterable<FhirResource | readonly FhirResource[]> }).values()].flat();
  const seen = new Map<string, number>();
  return declared.map((resource) => {
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

/**
 * The sources of each app, for its export job. The areas' FHIR declarations reach the routes
 * (their plugins' `fhir` option), not the services a job runs with; the routes plugin keeps them
 * here, keyed by the app's services, so apps side by side (tests) each see their own.
 */
const appSources = new WeakMap<Services, readonly Source[]>();

export function keepSources(services: Services, sources: readonly Source[]): void {
  appSources.set(services, sources);
}

/** The app's sources; undefined before its routes are registered (the job then fails and is retried). */
export const sourcesFor = (services: Services): readonly Source[] | undefined => appSources.get(services);
