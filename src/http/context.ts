import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Scope } from '../db/scope.ts';
import type { AnswerRecord, ReadRecording } from '../events/access.ts';
import { type Actor, systemActor } from '../events/audit.ts';
import type { Permission } from '../formation/permissions.ts';
import type { Formation } from '../formation/schemas.ts';
import type { Access, Caller } from '../tenancy/access.ts';
import type { Instance, Tenant } from '../tenancy/tenancy.ts';
import { isTimeZone } from '../wire/formats.ts';
import { DEFAULT_TIME_ZONE } from '../wire/local-time.ts';
import type { IdempotencyClaim } from './idempotency-store.ts';
import type { Services } from './services.ts';

/**
 * What an operation needs to know about the request it serves, obtained in one call and passed
 * explicitly as the first argument of every operation: the database, the tenant, who acts and
 * how they are logged. Stores take only `db` and a `Scope`.
 */
export interface TenantContext {
  readonly services: Services;
  readonly db: Kysely<DB>;
  readonly tenant: Tenant;
  /** Who is calling: an API client or a user (some results depend on the kind, 000). */
  readonly caller: Caller | undefined;
  /** Who the audit log and the created/updated-by fields name. */
  readonly actor: Actor;
  readonly log: FastifyBaseLogger;
  /**
   * The IANA zone `local…` fields are written in (wire/local-time.ts): a user caller's own
   * time zone, UTC for API clients, users without one, and the system (000, DECISIONS §4).
   */
  readonly timezone: string;
  /** Whether the caller holds a permission (beyond the route's own, which is already checked). */
  can(permission: Permission): boolean;
  /** The Idempotency-Key this request holds (http/idempotency.ts): its write marks it committed. */
  readonly idempotency?: IdempotencyClaim;
  /**
   * A request whose answer shows patient data: its access record goes in with the request's own
   * statements, a write's or a read's that opts in (http/access-log.ts, events/access.ts).
   */
  readonly disclosure?: AnswerRecord;
}

/** The context of an instance route (`/{tenantName}/{instanceName}/...`). */
export interface Context extends TenantContext {
  readonly instance: Instance;
  readonly scope: Scope;
  /** The instance's current formation, loaded on first use (and cached per node). */
  formation(): Promise<Formation>;
}

declare module 'fastify' {
  interface FastifyRequest {
    context: Context | TenantContext | null;
  }
}

/** The context of a tenant route (`/{tenantName}/admin/...`). */
/**
 * The request's access record for a read that records its answer in its own statement
 * (events/access.ts `shownRecord`): none when the request discloses nothing or has no caller, and
 * none on Citus, which plans an insert from a read's CTE as steps through the coordinator (the
 * read's rows pulled to it, then inserted): three trips to the worker where a router read and the
 * access log's shared statement make two.
 */
export function readRecording(ctx: TenantContext): ReadRecording | undefined {
  if (!ctx.disclosure || ctx.services.dbKind === 'citus') return undefined;
  return { record: ctx.disclosure, at: ctx.services.clock.now() };
}

export function tenantContextOf(request: FastifyRequest): TenantContext {
  if (!request.context) throw new Error(`${request.routeOptions.url} has no request context: is it a tenant route?`);
  return request.context;
}

/** The context of an instance route. */
export function contextOf(request: FastifyRequest): Context {
  const context = tenantContextOf(request);
  if (!('instance' in context)) throw new Error(`${request.routeOptions.url} is not an instance route`);
  return context as Context;
}

/** Builds a request's context once its caller, tenant and instance are known (the access hook does). */
export function requestContext(
  services: Services,
  request: FastifyRequest,
  caller: Caller,
  access: Access,
  tenant: Tenant,
  instance: Instance | undefined,
): Context | TenantContext {
  const actor: Actor = {
    tenantId: tenant.id,
    instanceId: instance?.id ?? null,
    type: caller.type,
    id: caller.id,
    name: caller.name,
    requestId: request.id,
    method: request.method,
    route: request.routeOptions.url ?? null,
  };
  const base = {
    services,
    db: services.db,
    tenant,
    caller,
    actor,
    log: request.log,
    // A zone stored before it was checked, or one this runtime lacks, falls back rather than failing reads.
    timezone: access.timezone && isTimeZone(access.timezone) ? access.timezone : DEFAULT_TIME_ZONE,
    can: (permission: Permission) => access.permissions.has(permission),
  };
  return instance ? instanceContext(base, instance) : base;
}

/** A context acting as SYSTEM, for the CLI and background work: in an instance, or across the tenant. */
export function systemContext(services: Services, tenant: Tenant, instance: Instance, log?: FastifyBaseLogger): Context;
export function systemContext(services: Services, tenant: Tenant, instance?: undefined, log?: FastifyBaseLogger): TenantContext;
export function systemContext(
  services: Services,
  tenant: Tenant,
  instance?: Instance,
  log?: FastifyBaseLogger,
): Context | TenantContext {
  const base = {
    services,
    db: services.db,
    tenant,
    caller: undefined,
    actor: systemActor(tenant.id, instance?.id ?? null),
    log: log ?? services.log,
    timezone: DEFAULT_TIME_ZONE,
    can: () => true,
  };
  return instance ? instanceContext(base, instance) : base;
}

function instanceContext(base: TenantContext, instance: Instance): Context {
  let formation: Promise<Formation> | undefined;
  return {
    ...base,
    instance,
    scope: { tenantId: instance.tenantId, instanceId: instance.id },
    formation: () => {
      formation ??= base.services.currentFormation(instance);
      return formation;
    },
  };
}
