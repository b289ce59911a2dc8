import { LRUCache } from 'lru-cache';
import * as oidc from 'openid-client';
import type { Services } from '../../../http/services.ts';
import type { IdentityProviderRow } from './store.ts';

/**
 * How long a node keeps a provider's discovered configuration: a sign-in does not fetch the
 * discovery document each time, and a provider's new endpoints are seen within minutes (its new
 * keys at once: openid-client fetches the JWKS again for a key it does not know). A change through
 * the admin API is seen at once: the entry is the row's as last updated.
 */
export const DISCOVERY_TTL_MS = 5 * 60_000;

/** A person waits on each call to the provider: fail within seconds, not openid-client's 30. */
const TIMEOUT_SECONDS = 10;

/**
 * The relying party Cairn is towards a tenant's identity providers: openid-client's configuration
 * of each, discovered from its issuer, with the client's id and its secret unsealed.
 */
export class IdentityProviderConfigurations {
  private readonly cache: LRUCache<string, Promise<oidc.Configuration>>;

  constructor(private readonly services: Services) {
    // Aged by Cairn's clock, which tests move, read on every look (as servers.ts does).
    const perf = { now: () => services.clock.now().getTime() };
    this.cache = new LRUCache({ max: 1000, ttl: DISCOVERY_TTL_MS, ttlResolution: 0, perf });
  }

  of(provider: IdentityProviderRow): Promise<oidc.Configuration> {
    const key = `${provider.tenant_id}/${provider.id}/${provider.updated_at.getTime()}`;
    let configuration = this.cache.get(key);
    if (!configuration) {
      configuration = this.discover(provider);
      this.cache.set(key, configuration);
      // A provider away for a moment is asked again by the next sign-in.
      configuration.catch(() => this.cache.delete(key));
    }
    return configuration;
  }

  private async discover(provider: IdentityProviderRow): Promise<oidc.Configuration> {
    const issuer = new URL(provider.issuer);
    // http only ever names this machine (the admin API allows nothing else): development.
    const insecure = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    const discovered = await oidc.discovery(issuer, provider.client_id, undefined, oidc.None(), {
      execute: insecure,
      timeout: TIMEOUT_SECONDS,
    });
    const sealed = provider.client_secret_sealed;
    const opened = sealed ? this.services.sealer.open(sealed)?.secret : undefined;
    if (sealed && typeof opened !== 'string') throw new Error('the client secret was sealed under another server secret');
    const secret = typeof opened === 'string' ? opened : undefined;
    const metadata = discovered.serverMetadata();
    const configuration = new oidc.Configuration(metadata, provider.client_id, secret, authenticationOf(metadata, secret));
    for (const execute of insecure) execute(configuration);
    configuration.timeout = TIMEOUT_SECONDS;
    return configuration;
  }
}

/**
 * How Cairn authenticates at the token endpoint: with no secret, as a public client (PKCE alone);
 * with one, HTTP Basic, the default OpenID Connect gives a provider that names none, unless the
 * provider takes the secret in the form only.
 */
function authenticationOf(metadata: oidc.ServerMetadata, secret: string | undefined): oidc.ClientAuth {
  if (secret === undefined) return oidc.None();
  const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  return methods.includes('client_secret_basic') ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
}
