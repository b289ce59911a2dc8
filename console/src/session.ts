import { type CairnClient, CairnError, type Credentials, createCairnClient } from '@cairn/client';
import { finishSignIn, type OAuthSignIn } from './oauth.ts';

/** Who is signed in, and the client carrying their token. The token lives in this object only: never in storage. */
export interface Session {
  client: CairnClient;
  tenantName: string;
  instanceName: string;
  /** What the navigation bar shows: the user's name or the client's key. */
  who: string;
  /** Ends the session: a person's at the authorization server too (a page load). */
  signOut: () => Promise<void>;
  /** A person (signed in on the authorization server's page), not an API client. */
  person: boolean;
}

/** The API is the server that served the console (a build for another origin may set VITE_CAIRN_URL). */
export const baseUrl = (import.meta.env.VITE_CAIRN_URL as string | undefined) ?? window.location.origin;

// A refused sign-in is answered at once: the client's retries are for calls, not for a person waiting.
const retry = { retries: 2, maxRetryAfterMs: 5_000 };

/** An API client signs in: the first token is fetched now, so a bad secret shows on the form; the client renews it after. */
export async function signIn(credentials: Credentials, tenantName: string, instanceName: string): Promise<Session> {
  const client = createCairnClient({ baseUrl, credentials, retry });
  await client.tokens?.get();
  const who = 'username' in credentials ? credentials.username : credentials.apiClient;
  return { client, tenantName, instanceName, who, signOut: async () => undefined, person: false };
}

/** A person back from the instance's sign-in page (oauth.ts): a session on its tokens; undefined when this load is not that. */
export async function returningSession(): Promise<Session | undefined> {
  const signedIn = await finishSignIn(baseUrl);
  return signedIn && sessionOf(signedIn);
}

function sessionOf(signedIn: OAuthSignIn): Session {
  let first: OAuthSignIn['first'] | undefined = signedIn.first;
  const issueToken = async () => {
    const token = first ?? (await signedIn.renew());
    first = undefined;
    return token;
  };
  const client = createCairnClient({ baseUrl, issueToken, retry });
  const { tenantName, instanceName, who, signOut } = signedIn;
  return { client, tenantName, instanceName, who, signOut, person: true };
}

/** A field's message from a VALIDATION_ERROR, keyed by the field's path without its `body.` / `querystring.` part. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof CairnError) || error.errorCode !== 'VALIDATION_ERROR') return {};
  const errors = (error.details.errors ?? []) as { path?: string; message?: string }[];
  const byField: Record<string, string> = {};
  for (const entry of errors) {
    const field = (entry.path ?? '').replace(/^(body|querystring|params)\.?/, '') || '_';
    byField[field] ??= entry.message ?? 'Invalid';
  }
  return byField;
}

/** The first message for a field or anything inside it (`roles` covers `roles.0.permissionName`). */
export function fieldError(fields: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(fields).find((path) => path === name || path.startsWith(`${name}.`) || path.startsWith(`${name}/`));
  return key === undefined ? undefined : fields[key];
}

/** What a person reads for an error: the status and the API's own code and message (a 403 names the permission). */
export function describeError(error: unknown): string {
  if (error instanceof CairnError) {
    const object = Array.isArray(error.body) ? (error.body[0] as { message?: string } | undefined) : undefined;
    const prefix = error.status === 403 ? 'Access denied' : error.status === 401 ? 'Not signed in' : 'Error';
    return `${prefix} (${error.status} ${error.errorCode})${object?.message ? `: ${object.message}` : ''}`;
  }
  if (error instanceof TypeError) return 'The server could not be reached';
  return error instanceof Error ? error.message : String(error);
}

/** `crypto.randomUUID` (the client's idempotency keys) exists only in secure contexts; plain-HTTP hosts get this. */
export function ensureRandomUuid(): void {
  if (typeof crypto.randomUUID === 'function') return;
  Object.defineProperty(crypto, 'randomUUID', {
    value: () => {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      bytes[6] = (bytes[6]! & 0x0f) | 0x40;
      bytes[8] = (bytes[8]! & 0x3f) | 0x80;
      const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  });
}
