import type { Context } from '../../http/context.ts';
import { type FhirResource, paramsOf, type Referenced } from '../../http/fhir.ts';
import { mayReadType } from '../../http/scopes.ts';
import { type Found, findRows, formedOf } from './store.ts';

/**
 * `_include={Type}:{param}[:{target}]`: with a page of matches, the resources they refer to
 * through a reference parameter (CareTeam's participants, a Task's patient), as entries of mode
 * `include`. Each target type is read in one statement per source, whatever the page's size, and
 * only from the sources the caller may read (their permission, and a SMART token's scope): FHIR
 * lets a server leave out what the client may not see. A value naming a parameter this type cannot
 * include through is ignored, as an unknown parameter is, and left out of the `self` link.
 */

/** What `_include` takes for a type (`Task:patient`), for the CapabilityStatement and the docs. */
export function includeNames(type: string, sources: readonly FhirResource[]): string[] {
  const names = sources.flatMap((source) =>
    Object.entries(paramsOf(source)).flatMap(([name, param]) => (param.includes ? [`${type}:${name}`] : [])),
  );
  return [...new Set(names)];
}

/** The `_include` values this type serves, among those asked for: `[value, param name, target or undefined]`. */
export function parseIncludes(type: string, sources: readonly FhirResource[], asked: string[]) {
  return asked.flatMap((value) => {
    const [from, name = '', target] = value.split(':');
    if (from !== type) return [];
    const includes = sources.map((source) => paramsOf(source)[name]?.includes).find(Boolean);
    if (!includes || (target !== undefined && !includes.targets.includes(target))) return [];
    return [{ value, name, target }];
  });
}

export type Include = ReturnType<typeof parseIncludes>[number];

/** The resources the page's matches refer to through the includes, each once, none of the matches again. */
export async function included(
  ctx: Context,
  fhir: ReadonlyMap<string, readonly FhirResource[]>,
  includes: Include[],
  page: Found[],
): Promise<Found[]> {
  if (includes.length === 0 || page.length === 0) return [];
  // By type and id: a CareTeam's id is its patient's.
  const shown = new Set(page.map((found) => `${found.source.type}/${found.row.id}`));
  const wanted = new Map<string, Set<string>>();
  for (const { source, row } of page) {
    for (const include of includes) {
      const refs: Referenced[] = paramsOf(source)[include.name]?.includes?.refersTo(row as never) ?? [];
      for (const ref of refs) {
        if ((include.target !== undefined && ref.type !== include.target) || shown.has(`${ref.type}/${ref.id}`)) continue;
        wanted.set(ref.type, (wanted.get(ref.type) ?? new Set()).add(ref.id));
      }
    }
  }
  const reads = [...wanted].flatMap(([type, ids]) =>
    (mayReadType(ctx.caller?.scopes, type) ? (fhir.get(type) ?? []) : [])
      .filter((source) => ctx.can(source.permission))
      .map(async (declared) => {
        const source = await formedOf(ctx, declared);
        return (await findRows(ctx, source, [...ids])).map((row) => ({ source, row }));
      }),
  );
  return (await Promise.all(reads)).flat();
}
