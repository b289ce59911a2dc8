import { hkdfSync } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { type Config, settingsOf } from '../config.ts';
import type { Database, DatabaseKind } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { AccessWriter } from '../events/access.ts';
import type { PatientData } from '../events/work.ts';
import type { BlobStore } from '../files/blob-store.ts';
import { createBlobStore, FileService } from '../files/files.ts';
import type { FileOwners } from '../files/owners.ts';
import { fileStoreSettings } from '../files/settings.ts';
import { platformSections } from '../formation/platform.ts';
import type { Formation } from '../formation/schemas.ts';
import { FormationShape } from '../formation/sections.ts';
import { loadFormation } from '../formation/store.ts';
import type { JobKind } from '../jobs/kinds.ts';
import { JobRunner } from '../jobs/runner.ts';
import { jobSettings } from '../jobs/settings.ts';
import type { ChannelHandlers, ChannelName } from '../providers/channels.ts';
import { Sealer } from '../providers/sealed.ts';
import { type Channel, Providers, type StoredConfig } from '../providers/slot.ts';
import { loadProviderConfig } from '../providers/store.ts';
import type { Caller } from '../tenancy/access.ts';
import { type Access, loadAccess } from '../tenancy/access.ts';
import { scryptConcurrencyFor, setScryptConcurrency } from '../tenancy/secrets.ts';
import {
  findInstanceById,
  findInstanceByName,
  findTenantById,
  findTenantByName,
  type Instance,
  type Tenant,
} from '../tenancy/tenancy.ts';
import { ReadThroughCache } from './cache.ts';
import { CacheInvalidation } from './cache-invalidation.ts';
import type { FhirResource } from './fhir.ts';
import { PageTokens } from './pagination.ts';
import { TokenService } from './tokens.ts';

/** The time as the app sees it: a test may set it (signed links' expiry, local times). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ServiceOptions {
  config: Config;
  database: Database;
  /** Signs bearer tokens and page tokens; every node must have the same. */
  secret: string;
  clock?: Clock;
  /** Replaces the configured blob store (tests of a store's failures). */
  blobs?: BlobStore;
  /** What the areas declared for the mechanisms, merged (platform/area.ts); none when omitted. */
  declared?: Partial<Declared>;
  /** Replaces channels' drivers (tests of a vendor's failure, a fake of its API). */
  providers?: ReadonlyMap<Channel, unknown>;
  /** The app's logger, for background work (no PHI: ids and codes only). */
  log?: FastifyBaseLogger;
}

/** What the areas declare for the mechanisms the services hold. */
/**
 * Access tokens that are not Cairn's own signed ones: an app's, issued by an instance's
 * authorization server (modules/apps) and good in that instance only. The area that issues them
 * resolves them in the instance the request names; undefined for a token it does not know.
 */
/** Resolves an opaque token in its tenant, on an instance's route or a tenant's (`instance` absent). */
export type OpaqueTokens = (
  services: Services,
  token: string,
  where: { tenant: Tenant; instance?: Instance | undefined },
) => Promise<Caller | undefined>;

export interface Declared {
  /** Background work, by kind. */
  jobKinds: ReadonlyMap<string, JobKind<Services>>;
  /** What files can belong to. */
  fileOwners: FileOwners;
  /** The formation's sections, the platform's and the areas'. */
  formation: FormationShape;
  /** What the channels' areas do with what providers report (inbound messages, delivery outcomes). */
  channels: ReadonlyMap<ChannelName, ChannelHandlers<Services>>;
  /** Every outside service's slot the areas reach (a tenant administrator configures their drivers). */
  slots: readonly Channel[];
  /** What each area does with a patient's rows in the patient's delete and purge, and what a purge keeps. */
  patientData: readonly PatientData[];
  /** The FHIR resources the areas' records are, by type (the bulk export's job walks them). */
  fhir: ReadonlyMap<string, readonly FhirResource[]>;
  /** What resolves an app's opaque access token (the apps area's authorization servers), if an area issues them. */
  opaqueTokens?: OpaqueTokens;
}

const noop = () => {};
const silent = {
  level: 'silent',
  fatal: noop,
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
  trace: noop,
  silent: noop,
  child: () => silent,
} as unknown as FastifyBaseLogger;

/**
 * What every operation needs besides its request, built once per app (buildApp) and reached
 * through the request context. Nothing here is module-level, so tests run several apps side by
 * side and replace a part (config, clock; later providers and the blob store) through buildApp.
 */
export class Services {
  readonly config: Config;
  readonly db: Kysely<DB>;
  readonly dbKind: DatabaseKind;
  readonly tokens: TokenService;
  readonly pageTokens: PageTokens;
  readonly clock: Clock;
  readonly files: FileService;
  /** The access log's writer for answers: concurrent answers' records share a statement (events/access.ts). */
  readonly accessLog: AccessWriter;
  readonly fileOwners: FileOwners;
  readonly formationShape: FormationShape;
  /** The outside services' drivers (email, SMS, ...) per instance: `await services.providers.for(emailSlot, scope)`. */
  readonly providers: Providers<Services>;
  /** Seals the credentials tenants give for outside services (their SMTP password). */
  readonly sealer: Sealer;
  /** A key for one purpose (an authorization server's cookies), derived from the server's secret: the same on every node. */
  readonly derivedKey: (purpose: string) => Buffer;
  /** What the channels' areas do with inbound messages and delivery outcomes, by channel. */
  readonly channels: ReadonlyMap<ChannelName, ChannelHandlers<Services>>;
  /** Every outside service's slot, by the area that reaches it. */
  readonly slots: readonly Channel[];
  /** What the areas do with a patient's rows (their `patientData`), run by the delete's and the purge's writes. */
  readonly patientData: readonly PatientData[];
  /** The FHIR resources the areas' records are, by type (Patient; Communication from chat, SMS and email). */
  readonly fhir: ReadonlyMap<string, readonly FhirResource[]>;
  readonly log: FastifyBaseLogger;
  /** This process's job workers: started by `cairn serve`, woken by writes, drained by tests. */
  readonly jobs: JobRunner<Services>;
  private readonly tenants: ReadThroughCache<Tenant>;
  private readonly tenantsById: ReadThroughCache<Tenant>;
  private readonly instances: ReadThroughCache<Instance>;
  private readonly instancesById: ReadThroughCache<Instance>;
  private readonly formations: ReadThroughCache<{ document: Formation }>;
  private readonly access: ReadThroughCache<Access>;
  private readonly providerConfigs: ReadThroughCache<{ config: StoredConfig | null }>;
  /** Tells every serving process to drop its read caches (cache-invalidation.ts). */
  readonly caches: CacheInvalidation;
  private readonly opaqueTokens: OpaqueTokens | undefined;

  constructor({ config, database, secret, clock = systemClock, blobs, declared = {}, providers, log = silent }: ServiceOptions) {
    const {
      jobKinds = new Map(),
      fileOwners = new Map(),
      formation = new FormationShape(platformSections),
      channels = new Map(),
      slots = [],
      patientData = [],
      fhir = new Map(),
      opaqueTokens,
    } = declared;
    this.config = config;
    this.opaqueTokens = opaqueTokens;
    this.tokens = new TokenService(secret, clock);
    this.pageTokens = new PageTokens(secret);
    this.clock = clock;
    this.db = database.db;
    this.dbKind = database.kind;
    // The process's bound on scrypt at once (one serving process, one Services): a worker of
    // `serve --workers` is given its share by the primary (cli/serve.ts).
    setScryptConcurrency(scryptConcurrencyFor(config.scryptConcurrency, 1));
    this.accessLog = new AccessWriter(this.db);
    this.files = new FileService(blobs ?? createBlobStore(settingsOf(config, fileStoreSettings)), secret);
    this.fileOwners = fileOwners;
    this.formationShape = formation;
    this.channels = channels;
    this.slots = slots;
    this.patientData = patientData;
    this.fhir = fhir;
    this.sealer = new Sealer(secret);
    this.derivedKey = (purpose) => Buffer.from(hkdfSync('sha256', secret, 'cairn', purpose, 32));
    // A channel's configuration for an instance, its tenant's, or none, read once per node every CAIRN_CACHE_TTL_MS.
    this.providerConfigs = new ReadThroughCache<{ config: StoredConfig | null }>(config.cacheTtlMs, async (key) => {
      const [channel = '', tenantId = '', instanceId = ''] = key.split('/');
      return { config: (await loadProviderConfig(this.db, this.sealer, channel, { tenantId, instanceId })) ?? null };
    });
    this.providers = new Providers<Services>(
      this,
      (section) => settingsOf(config, section),
      async (channel, scope) =>
        (await this.providerConfigs.get(`${channel}/${scope.tenantId}/${scope.instanceId}`))?.config ?? undefined,
      providers,
    );
    this.log = log;
    this.jobs = new JobRunner({
      db: this.db,
      engine: database.kind,
      clock,
      kinds: jobKinds,
      env: this,
      settings: settingsOf(config, jobSettings),
      log,
      ...(database.listen ? { listen: database.listen } : {}),
    });
    const ttl = config.cacheTtlMs;
    this.tenants = new ReadThroughCache(ttl, (name) => findTenantByName(this.db, name));
    // Background work knows tenants by id; a tenant never changes its name or id.
    this.tenantsById = new ReadThroughCache(60 * 60 * 1000, (id) => findTenantById(this.db, id), 10_000);
    this.instances = new ReadThroughCache(ttl, (key) => {
      const [tenantId = '', name = ''] = key.split('/');
      return findInstanceByName(this.db, tenantId, name);
    });
    // Background work knows instances by id.
    this.instancesById = new ReadThroughCache(ttl, (key) => {
      const [tenantId = '', id = ''] = key.split('/');
      return findInstanceById(this.db, tenantId, id);
    });
    // Published formations never change, so only the version that is current can go stale.
    this.formations = new ReadThroughCache(
      60 * 60 * 1000,
      async (key) => {
        const [tenantId = '', instanceId = '', version = ''] = key.split('/');
        const row = await loadFormation(this.db, tenantId, instanceId, Number(version));
        return row && { document: row.document as Formation };
      },
      1_000,
    );
    this.access = new ReadThroughCache(ttl, (key) => {
      const [tenantId = '', type = '', id = '', instanceId = ''] = key.split('/');
      const caller = { tenantId, type: type as Caller['type'], id };
      return loadAccess(
        this.db,
        (instance, version) => this.formation(tenantId, instance, version),
        caller,
        instanceId || undefined,
      );
    });
    this.caches = new CacheInvalidation(this.db, () => this.clearCaches(), log, database.listen);
  }

  // A name with a NUL byte names nothing: PostgreSQL text cannot hold one, and would refuse the lookup.
  tenant(name: string): Promise<Tenant | undefined> {
    if (name.includes('\u0000')) return Promise.resolve(undefined);
    return this.tenants.get(name);
  }

  tenantById(id: string): Promise<Tenant | undefined> {
    return this.tenantsById.get(id);
  }

  instance(tenantId: string, name: string): Promise<Instance | undefined> {
    if (name.includes('\u0000')) return Promise.resolve(undefined);
    return this.instances.get(`${tenantId}/${name}`);
  }

  instanceById(tenantId: string, id: string): Promise<Instance | undefined> {
    return this.instancesById.get(`${tenantId}/${id}`);
  }

  /** A published formation; an instance that never published one has an empty formation. */
  async formation(tenantId: string, instanceId: string, version: number | null): Promise<Formation> {
    if (version === null) return {};
    return (await this.formations.get(`${tenantId}/${instanceId}/${version}`))?.document ?? {};
  }

  currentFormation(instance: Instance): Promise<Formation> {
    return this.formation(instance.tenantId, instance.id, instance.currentFormationVersion);
  }

  /** The caller's permissions in one instance, or across the tenant when `instanceId` is omitted. */
  /** The caller an opaque access token (an app's) stands for in this instance; undefined when none issued it. */
  async opaqueCaller(token: string, where: { tenant: Tenant; instance?: Instance | undefined }): Promise<Caller | undefined> {
    return this.opaqueTokens?.(this, token, where);
  }

  async accessOf(caller: Caller, instanceId?: string): Promise<Access> {
    const access = await this.access.get(`${caller.tenantId}/${caller.type}/${caller.id}/${instanceId ?? ''}`);
    return access ?? { active: false, instanceIds: new Set(), permissions: new Set() };
  }

  /**
   * Call after a committed change to tenants, instances, formations, grants, callers' status or
   * provider configurations: this process's caches go at once, every other node's on the
   * notification it hears.
   */
  forgetCaches(): Promise<void> {
    return this.caches.changed();
  }

  private clearCaches(): void {
    this.tenants.clear();
    this.instances.clear();
    this.instancesById.clear();
    this.access.clear();
    this.providerConfigs.clear();
  }
}
