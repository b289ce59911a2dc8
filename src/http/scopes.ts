/**
 * SMART App Launch 2.0 system scopes (docs/fhir.md, "SMART Backend Services"). A token from the
 * backend-services token route carries the scopes granted, each naming one resource type and what
 * may be done with it: `system/Patient.rs` reads (r) and searches (s) Patient. Cairn's FHIR API is
 * read-only, so r and s are all a scope ever grants. Such a token narrows its client's roles: a
 * route is open to it only where the route names a scope it holds, and the roles still decide.
 * Tokens without scopes (Cairn's own `/auth/token`) are not narrowed.
 */

import { requestOrigin } from '../files/links.ts';
import { publicUrl } from './provider-callbacks.ts';
import type { Services } from './services.ts';

/** Where a backend service trades its signed assertion for a token (modules/auth/smart.ts). */
export const SMART_TOKEN_PATH = '/auth/smart/token';

/**
 * The token endpoint as the discovery document and the CapabilityStatement tell it: under
 * CAIRN_PUBLIC_URL when that is set, otherwise as the request reached this server.
 */
export const smartTokenEndpoint = (services: Services, request: { protocol: string; host: string }) =>
  publicUrl(services, SMART_TOKEN_PATH) ?? `${requestOrigin(request)}${SMART_TOKEN_PATH}`;

export type Interaction = 'r' | 's';

/**
 * What a route asks of a scoped token: a type and an interaction (`Patient.r` to read one, `Patient.s`
 * to search), or `*` for a route whose handler narrows by type itself (the bulk export).
 */
export type RouteScope = `${string}.${Interaction}` | '*';

/**
 * `system/{type}.{cruds}` in SMART v2, or v1's `system/{type}.read|write|*`; `*` as the type is every
 * type. `user/` scopes are an app's acting for a user (modules/apps): they narrow the user's roles
 * the same way. `patient/` scopes narrow them further, to one patient's compartment (`confinement`).
 */
const SCOPE = /^(system|user|patient)\/([A-Za-z]+|\*)\.(c?r?u?d?s?|read|write|\*)$/;

export interface RequestedScope {
  context: 'system' | 'user' | 'patient';
  /** A resource type, or `*`. */
  type: string;
  /** What of r and s it asks for (v1's `read` and `*` are both). */
  interactions: Interaction[];
}

/** A resource scope as asked for, or undefined for one that is not (`openid`, `launch/patient`). */
export function parseScope(text: string): RequestedScope | undefined {
  const match = SCOPE.exec(text);
  if (!match || match[3] === '') return undefined;
  const [, context, type, permissions] = match as unknown as [string, RequestedScope['context'], string, string];
  const interactions: Interaction[] =
    permissions === 'read' || permissions === '*'
      ? ['r', 's']
      : permissions === 'write'
        ? []
        : (['r', 's'] as const).filter((letter) => permissions.includes(letter));
  return { context, type, interactions };
}

/** The scope granting these interactions on a type: `system/Patient.rs`. */
export const scopeOf = (type: string, interactions: Interaction[]) => `system/${type}.${interactions.join('')}`;

/** The scopes, parsed, that grant an interaction on a type (theirs or `*`). */
const grants = (scopes: readonly string[], type: string, interaction: Interaction) =>
  scopes
    .map(parseScope)
    .filter(
      (parsed): parsed is RequestedScope =>
        parsed !== undefined && (parsed.type === type || parsed.type === '*') && parsed.interactions.includes(interaction),
    );

/** Whether scopes as granted let a token use a route that names this scope. */
export function scopesAllow(scopes: readonly string[], needed: RouteScope | undefined): boolean {
  if (needed === undefined) return false;
  if (needed === '*') return scopes.some((scope) => parseScope(scope) !== undefined);
  const [type, interaction] = needed.split('.') as [string, Interaction];
  return grants(scopes, type, interaction).length > 0;
}

/**
 * Whether a token reaches one patient's records only, for an interaction on a type: when none of
 * its scopes but `patient/` ones grant it (a `user/` or `system/` scope granting it reaches what the
 * roles do). Then `patient` is the patient of its launch, or null for a token without one, which
 * reaches nothing. Undefined when the token is not confined.
 */
export function confinement(
  caller: { scopes?: readonly string[]; patient?: string } | undefined,
  type: string,
  interaction: Interaction,
): { patient: string | null } | undefined {
  if (!caller?.scopes) return undefined;
  const granting = grants(caller.scopes, type, interaction);
  if (granting.length === 0 || granting.some((scope) => scope.context !== 'patient')) return undefined;
  return { patient: caller.patient ?? null };
}

/** Whether scopes let a token read resources of a type (the bulk export's filter); no scopes, no narrowing. */
export const mayReadType = (scopes: readonly string[] | undefined, type: string) =>
  scopes === undefined || scopesAllow(scopes, `${type}.r`);
