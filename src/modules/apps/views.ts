import type { AppView } from './schemas.ts';
import type { AppRow } from './store.ts';

/** An app as the API shows it: never its secret. */
export function appView(row: AppRow): AppView {
  return {
    id: row.id,
    name: row.name,
    clientId: row.client_id,
    clientType: row.client_type,
    redirectUris: row.redirect_uris,
    scopes: row.scopes,
    launchKinds: row.launch_kinds,
    launchUrl: row.launch_url,
    jwks: (row.jwks as AppView['jwks']) ?? null,
    jwksUri: row.jwks_uri,
    enabled: row.enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
