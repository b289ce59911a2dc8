import { errorObjectOf } from './errors.ts';
import type { TokenSource } from './tokens.ts';

export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** The first backoff; each retry doubles it, with full jitter (default 250 ms). */
  baseDelayMs?: number;
  /** The longest backoff (default 10 s). */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` the client waits out (default 60 s). A longer one (the token
   * route's 5-minute block) is answered to the caller at once rather than held in a call.
   */
  maxRetryAfterMs?: number;
}

export interface SendOptions {
  fetch: (request: Request) => Promise<Response>;
  retry: Required<RetryOptions>;
  now: () => number;
  /** Absent: no bearer token is added (public routes only). */
  tokens?: TokenSource;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The token routes: no bearer token, and no idempotency key (a repeated token request is harmless). */
const TOKEN_ROUTE = /\/auth\/token$|\/admin\/api_clients\/[^/]+$/;

/**
 * The fetch openapi-fetch calls: adds the bearer token (a new one once after a 401), an
 * `Idempotency-Key` on writes (one random UUID per call, the same on every retry of it), and
 * retries what may succeed later: 429 and 503 (after `Retry-After`, or a backoff), a 409 that
 * says so (`Retry-After`; IDEMPOTENCY_KEY_IN_USE: this key's first request is still running), and a
 * connection that failed (safe: reads change nothing, and a write carries its key, so the
 * server answers a repeat with the first outcome instead of doing it twice).
 */
export async function send(request: Request, options: SendOptions): Promise<Response> {
  const { retry } = options;
  const method = request.method.toUpperCase();
  const tokenRoute = TOKEN_ROUTE.test(new URL(request.url).pathname);
  // The body is kept to send again: a Request's body can be read once.
  const body = request.body ? await request.arrayBuffer() : undefined;
  const headers = new Headers(request.headers);
  if (WRITES.has(method) && !tokenRoute && !headers.has('idempotency-key')) headers.set('idempotency-key', crypto.randomUUID());
  const tokens = tokenRoute || headers.has('authorization') ? undefined : options.tokens;
  let refreshed = false;

  for (let attempt = 0; ; attempt++) {
    const attemptHeaders = new Headers(headers);
    const token = tokens && (await tokens.get());
    if (token) attemptHeaders.set('authorization', `Bearer ${token}`);
    let response: Response;
    try {
      response = await options.fetch(new Request(request.url, { method, headers: attemptHeaders, body, signal: request.signal }));
    } catch (error) {
      // fetch rejects with a TypeError when the connection fails; an abort is the caller's choice.
      if (!(error instanceof TypeError) || request.signal.aborted || attempt >= retry.retries) throw error;
      await sleep(backoff(attempt, retry), request.signal);
      continue;
    }
    if (response.status === 401 && token && tokens && !refreshed) {
      // Expired or revoked early: one new token, and this attempt does not count as a retry.
      refreshed = true;
      tokens.invalidate(token);
      await response.body?.cancel();
      attempt--;
      continue;
    }
    const wait = await retryDelay(response, attempt, options);
    if (wait === undefined || attempt >= retry.retries) return response;
    await response.body?.cancel();
    await sleep(wait, request.signal);
  }
}

/** How long to wait before sending again, or undefined when the answer is final. */
async function retryDelay(response: Response, attempt: number, { retry, now }: SendOptions): Promise<number | undefined> {
  const { status } = response;
  if (status !== 429 && status !== 503 && !(status === 409 && (await mayRetryConflict(response)))) return undefined;
  const after = retryAfterMs(response.headers.get('retry-after'), now());
  if (after === undefined) return backoff(attempt, retry);
  return after <= retry.maxRetryAfterMs ? after : undefined;
}

/**
 * A 409 worth repeating: one that says when (`Retry-After`: the idempotency key's first request
 * still running, or a serialization failure that wrote nothing), or IDEMPOTENCY_KEY_IN_USE.
 * Other conflicts (a duplicate, an answer the server lost) are final.
 */
async function mayRetryConflict(response: Response): Promise<boolean> {
  if (response.headers.has('retry-after')) return true;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return errorObjectOf(body)?.errorCode === 'IDEMPOTENCY_KEY_IN_USE';
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with full jitter, so clients refused together do not return together. */
function backoff(attempt: number, retry: Required<RetryOptions>): number {
  return Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
