import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressPolicy } from '../../providers/network.ts';

/**
 * POSTs to a receiver's URL and reaches only where webhooks may go: http(s) URLs whose every
 * resolved address is public (not loopback, link-local, private, unique-local, carrier NAT,
 * multicast or reserved), checked on the address the connection is made to, at every redirect.
 * A name that resolves to a public address once and a private one later cannot slip through: the
 * check is in the socket's own lookup.
 */

export type OutboundFailure = 'URL_NOT_ALLOWED' | 'ADDRESS_NOT_ALLOWED' | 'TIMEOUT' | 'CONNECTION_FAILED' | 'TOO_MANY_REDIRECTS';

export class OutboundError extends Error {
  constructor(readonly code: OutboundFailure) {
    super(code);
    this.name = 'OutboundError';
  }
}

/**
 * Kept-alive connections, one pool per policy: a receiver gets many deliveries, and a new TCP (and
 * TLS) connection for each cost more than the request. A pooled socket was connected to an
 * address checked when it was made, and only ever goes there.
 */
const pools = new WeakMap<AddressPolicy, { http: http.Agent; https: https.Agent }>();

function poolOf(allowed: AddressPolicy) {
  let pool = pools.get(allowed);
  if (!pool) {
    const options = { keepAlive: true, noDelay: true, maxSockets: 32, timeout: 30_000 };
    pool = { http: new http.Agent(options), https: new https.Agent(options) };
    pools.set(allowed, pool);
  }
  return pool;
}

/** The URL, if webhooks may post to it: http or https, and an IP literal host must pass the policy. */
export function checkedUrl(text: string, allowed: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError('URL_NOT_ALLOWED');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new OutboundError('URL_NOT_ALLOWED');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !allowed(host)) throw new OutboundError('ADDRESS_NOT_ALLOWED');
  return url;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  /** For the whole exchange, redirects included. */
  timeoutMs: number;
  allowed: AddressPolicy;
}

/**
 * The receiver's status, following up to five redirects with the same POST (a moved endpoint
 * still gets its events), each hop checked as the first. The answer's body is read and dropped.
 */
export async function post(url: string, options: PostOptions): Promise<{ status: number }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    let target = checkedUrl(url, options.allowed);
    for (let hop = 0; ; hop++) {
      const { status, location } = await send(target, options, controller.signal);
      if (!REDIRECTS.has(status) || !location) return { status };
      if (hop === MAX_REDIRECTS) throw new OutboundError('TOO_MANY_REDIRECTS');
      target = checkedUrl(new URL(location, target).toString(), options.allowed);
    }
  } catch (error) {
    if (controller.signal.aborted) throw new OutboundError('TIMEOUT');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function send(url: URL, options: PostOptions, signal: AbortSignal): Promise<{ status: number; location?: string }> {
  const secure = url.protocol === 'https:';
  const client = secure ? https : http;
  const pool = poolOf(options.allowed);
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) },
        signal,
        // Each new socket resolves the name through the check.
        lookup: checkedLookup(options.allowed),
        agent: secure ? pool.https : pool.http,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, ...locationOf(response.headers.location) }));
        response.on('error', reject);
      },
    );
    request.on('error', (error) => reject(error instanceof OutboundError ? error : connectionError(error)));
    request.end(options.body);
  });
}

function locationOf(location: string | undefined) {
  return location ? { location } : {};
}

function connectionError(error: Error): Error {
  if ((error as { cause?: unknown }).cause instanceof OutboundError) return (error as { cause: OutboundError }).cause;
  return error.name === 'AbortError' ? error : new OutboundError('CONNECTION_FAILED');
}

/** A socket lookup that resolves every address of the name and refuses the name if any is not allowed. */
function checkedLookup(allowed: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || !addresses.every((entry) => allowed(entry.address))) {
        return callback(new OutboundError('ADDRESS_NOT_ALLOWED') as NodeJS.ErrnoException, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      callback(null, first!.address, first!.family);
    });
  };
}
