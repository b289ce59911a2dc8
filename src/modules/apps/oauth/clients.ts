import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DB } from '../../../db/schema.ts';
import type { Sealer } from '../../../providers/sealed.ts';
import { type AppRow, readAppByClientId } from '../store.ts';
import { CONSOLE_CLIENT_ID, consoleClient } from './console.ts';
import { IDENTITY_SCOPES, RESOURCE_SCOPES } from './scopes.ts';

/**
 * oidc-provider's clients are the apps the tenant registered (smart_apps), and the console
 * (console.ts): its Client adapter reads them, and only reads. A disabled or deleted app is no
 * client, so its sign-ins and refreshes stop.
 */
export class AppClients implements Adapter {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly sealer: Sealer,
    private readonly tenantId: string,
    private readonly issuer: string,
  ) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    if (clientId === CONSOLE_CLIENT_ID) return consoleClient(this.issuer);
    const app = await readAppByClientId(this.db, this.tenantId, clientId);
    return app?.enabled ? clientMetadata(app, this.sealer) : undefined;
  }

  async upsert(): Promise<void> {
    throw new Error('apps are registered through the admin API, not by the authorization server');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/** An app as OpenID Connect client metadata: its kind decides how it authenticates at the token endpoint. */
export function clientMetadata(app: AppRow, sealer: Sealer): AdapterPayload {
  const common = {
    client_id: app.client_id,
    client_name: app.name,
    redirect_uris: app.redirect_uris,
    response_types: ['code' as const],
    grant_types: ['authorization_code', 'refresh_token'],
    // oidc-provider holds the OpenID scopes asked for to `scope`; resource scopes are Cairn's to check (scopes.ts).
    scope: app.scopes.filter((scope) => IDENTITY_SCOPES.includes(scope)).join(' '),
    [RESOURCE_SCOPES]: app.scopes.filter((scope) => !IDENTITY_SCOPES.includes(scope)),
  };
  if (app.client_type === 'PUBLIC') return { ...common, token_endpoint_auth_method: 'none' };
  if (app.client_type === 'CONFIDENTIAL_SYMMETRIC') {
    const secret = app.secret_sealed ? sealer.open(app.secret_sealed)?.secret : undefined;
    return { ...common, token_endpoint_auth_method: 'client_secret_basic', client_secret: String(secret ?? '') };
  }
  return {
    ...common,
    token_endpoint_auth_method: 'private_key_jwt',
    ...(app.jwks_uri ? { jwks_uri: app.jwks_uri } : { jwks: app.jwks as AdapterPayload['jwks'] }),
  };
}
