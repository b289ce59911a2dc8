import type { FastifyRequest } from 'fastify';

/**
 * Request ids. Every request gets Cairn's own id (a UUID, `request.id`), which the answer's
 * `X-Request-Id`, the logs, the audit rows and the access records carry: unique, so one id finds
 * one answer. A caller's own `X-Request-Id` is never taken in its place (it could be 8,000
 * characters, or the same on two requests); the access record keeps it beside Cairn's, in its own
 * field, when it is short and well-formed, so a caller can find the record of a request it traced.
 */

/** Short and well-formed: what UUIDs, ULIDs, trace ids and most gateways' ids look like. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:+=/-]{0,127}$/;

/** The caller's `X-Request-Id`, when it is 1 to 128 characters of letters, digits and `._:+=/-`; otherwise null. */
export function callerRequestId(request: FastifyRequest): string | null {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && CALLER_REQUEST_ID.test(header) ? header : null;
}
