import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type Provider from 'oidc-provider';
import type { Services } from '../../../http/services.ts';
import type { Instance, Tenant } from '../../../tenancy/tenancy.ts';
import { issuerOf } from './endpoints.ts';

export interface InstanceServer {
  provider: Provider;
  /** oidc-provider's request handler (a Koa app's callback), made once. */
  handle: ReturnType<Provider['callback']>;
  tenant: Tenant;
  instance: Instance;
  /** The FHIR base: the issuer, and the one resource its tokens are for. */
  issuer: string;
}

/**
 * How long a node keeps an instance's server before making it again, reading the signing keys
 * afresh (keys.ts rotates them on a read).
 */
export const SERVER_TTL_MS = 10 * 60_000;

/**
 * Each instance's authorization server, made on its first request and kept by this node for
 * SERVER_TTL_MS (they hold no state of their own: their records are in the database, so any node
 * serves any request). The issuer is the FHIR base under CAIRN_PUBLIC_URL, or as the request
 * reached Cairn.
 */
export class AuthorizationServers {
  private readonly servers: LRUCache<string, Promise<InstanceServer>>;

  constructor(private readonly services: Services) {
    // Aged by Cairn's clock, which tests move, read on every look (no cached "now").
    const perf = { now: () => services.clock.now().getTime() };
    this.servers = new LRUCache({ max: 500, ttl: SERVER_TTL_MS, ttlResolution: 0, perf });
  }

  async of(request: FastifyRequest, tenantName: string, instanceName: string): Promise<InstanceServer | undefined> {
    const tenant = await this.services.tenant(tenantName);
    const instance = tenant && (await this.services.instance(tenant.id, instanceName));
    if (!tenant || !instance) return undefined;
    const issuer = issuerOf(this.services, request, tenant.name, instance.name);
    let server = this.servers.get(issuer);
    if (!server) {
      server = this.build(tenant, instance, issuer);
      this.servers.set(issuer, server);
      // A failed build (the database away) is tried again by the next request.
      server.catch(() => this.servers.delete(issuer));
    }
    return server;
  }

  private async build(tenant: Tenant, instance: Instance, issuer: string): Promise<InstanceServer> {
    // oidc-provider (and Koa under it) holds ~5 MB of a process's heap: loaded by the first
    // instance that signs someone in, not by every serving process at start.
    const { buildProvider } = await import('./provider.ts');
    const provider = await buildProvider(this.services, tenant, instance, issuer);
    return { provider, handle: provider.callback(), tenant, instance, issuer };
  }
}
