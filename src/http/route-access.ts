import type { Permission } from '../formation/permissions.ts';
import type { CallerType } from '../tenancy/access.ts';
import type { Disclosure, NoDisclosure } from './access-log.ts';

/** What a route under `/{tenantName}/` needs of its caller, declared beside the route. */
export interface RouteAccess {
  /** The one permission the route needs (DECISIONS §5). Absent only on public routes. */
  permission?: Permission;
  /** Open without a token (the token routes). */
  public?: boolean;
  /** Only this kind of caller may use the route (e.g. export is for API clients). */
  callers?: CallerType;
  /** A second permission some bodies need; the route's handler checks it. */
  alsoNeeds?: { permission: Permission; when: string };
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

/** The routes' access rules as declared, `METHOD /path` → rule: the one table the API docs show. */
export type AccessTable = Map<string, RouteAccess>;
