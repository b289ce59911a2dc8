import createClient, { type Client, type HeadersOptions } from 'openapi-fetch';
import { CairnError } from './errors.ts';
import { type RetryOptions, send } from './fetch.ts';
import type { paths } from './schema.ts';
import { type Credentials, type IssuedToken, TokenSource } from './tokens.ts';

export interface CairnClientOptions {
  /** Where Cairn listens: `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** Who signs in; absent, calls carry no token (the token and health routes). */
  credentials?: Credentials;
  /**
   * Where tokens come from instead of `/auth/token`: an OAuth sign-in's (the console's), called for
   * the first token and again whenever one nears its expiry or is refused.
   */
  issueToken?: () => Promise<IssuedToken>;
  /** Fetch a new token this long before the current one expires (default 60 s). */
  refreshBeforeExpiryMs?: number;
  retry?: RetryOptions;
  /** The fetch under the client (default `globalThis.fetch`): a proxy's, or a test's. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent on every call. */
  headers?: HeadersOptions;
  /** The time in milliseconds (default `Date.now`): a test's clock. */
  now?: () => number;
}

/** The openapi-fetch client typed by the server's schemas (`GET`, `POST`, …, `use`), and its tokens. */
export type CairnClient = Client<paths> & {
  /** The bearer token in use, fetched or refreshed when needed (undefined without credentials). */
  readonly tokens: TokenSource | undefined;
};

/**
 * A client of one Cairn server:
 *
 *   const cairn = createCairnClient({ baseUrl, credentials: { apiClient: key, secret } });
 *   const page = await unwrap(cairn.GET('/{tenantName}/{instanceName}/patients', { params: { path: at } }));
 */
export function createCairnClient(options: CairnClientOptions): CairnClient {
  const now = options.now ?? Date.now;
  const retry = { retries: 4, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000, ...options.retry };
  const innerFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  let tokens: TokenSource | undefined;
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: (request) => send(request, { fetch: innerFetch, retry, now, ...(tokens ? { tokens } : {}) }),
    // 000: several values of a query parameter are comma-separated.
    querySerializer: { array: { style: 'form', explode: false } },
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const { credentials, issueToken } = options;
  const issue =
    issueToken ??
    (credentials &&
      (async () => {
        const { data, error, response } = await client.POST('/auth/token', { body: credentials });
        if (!data) throw new CairnError(response.status, error);
        return data;
      }));
  if (issue) tokens = new TokenSource(issue, { refreshBeforeExpiryMs: options.refreshBeforeExpiryMs ?? 60_000, now });
  return Object.assign(client, { tokens });
}
