import type { Permission } from '../formation/permissions.ts';
import type { CallerType } from '../tenancy/access.ts';
import type { Disclosure, NoDisclosure } from './access-log.ts';
import type { RouteScope } from './scopes.ts';

/** What a route under `/{tenantName}/` needs of its caller, declared beside the route. */
export interface RouteAccess {
  /** The one permission the route needs (DECISIONS §5). Absent only on public routes and `anyOf` ones. */
  permission?: Permission;
  /**
   * Permissions any one of which opens the route, which serves what those the caller holds read
   * (FHIR's Communication: chat, SMS, email). The access hook refuses a caller holding none; the
   * handler serves what `heldOf` answers.
   */
  anyOf?: readonly Permission[];
  /** Open without a token (the token routes). */
  public?: boolean;
  /** Only this kind of caller may use the route (e.g. export is for API clients). */
  callers?: CallerType;
  /** A second permission some bodies need; the route's handler checks it. */
  alsoNeeds?: { permission: Permission; when: string };
  /**
   * The SMART scope a scoped token (SMART Backend Services, http/scopes.ts) must hold to use the
   * route (`Patient.r`): a route naming none is closed to such tokens.
   */
  scope?: RouteScope;
  /** What its answers disclose of patients (http/access-log.ts), or why they disclose nothing. */
  discloses?: Disclosure | NoDisclosure;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** A route's config naming the one permission it needs: `{ config: needs('PATIENT_READ'), schema, ... }`. */
export function needs(permission: Permission, rest: Omit<RouteAccess, 'permission' | 'public'> = {}): { access: RouteAccess } {
  return { access: { permission, ...rest } };
}

/**
 * A route's config needing any one of several permissions: `{ config: needsAnyOf(['CHAT_READ',
 * 'SMS_READ']), ... }`. Its handler serves what `heldOf` answers.
 */
export function needsAnyOf(
  permissions: readonly Permission[],
  rest: Omit<RouteAccess, 'permission' | 'anyOf' | 'public'> = {},
): { access: RouteAccess } {
  return { access: { anyOf: permissions, ...rest } };
}

/** Which of an `anyOf` route's permissions the caller holds (the access hook let through only a caller holding one). */
export function heldOf(can: (permission: Permission) => boolean, anyOf: readonly Permission[]): Permission[] {
  return anyOf.filter(can);
}

/** The routes' access rules as declared, `METHOD /path` → rule: the one table the API docs show. */
export type AccessTable = Map<string, RouteAccess>;
