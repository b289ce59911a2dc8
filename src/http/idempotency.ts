import { createHash, randomUUID } from 'node:crypto';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, type ErrorCatalog, errorBody, type NamesOf } from '../wire/errors.ts';
import {
  type AnswerShows,
  type HeldKey,
  heldKey,
  type IdempotencyClaim,
  type KeptAnswer,
  keepAnswer,
  keepUnwrittenAnswer,
} from './idempotency-store.ts';
import type { Services } from './services.ts';

/**
 * Idempotent writes, as the IETF HTTP API working group's Idempotency-Key draft and Stripe do
 * them: a POST, PATCH or PUT with a token may carry `Idempotency-Key`. Its first write inserts the
 * key (tenant, caller, key) with a fingerprint of the request in the write's own statement
 * (work/unit.ts), so a rolled-back write leaves the key free and a committed one can never run
 * twice, at no round trip of its own; the answer is kept before it is sent. A request that fails,
 * or that would keep an answer while another request's key is there, answers as that key says: a
 * repeat within 24 hours gets the first answer byte for byte with `Idempotent-Replayed: true`; a
 * different request under the key is a 422; a repeat while the first runs is a 409. All of it lives
 * in the database: any node answers.
 */

export const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'PUT']);
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** What a key may be: a UUID is the usual choice; the draft allows any string. */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** The answer's headers a replay repeats; the rest (request id, dates) belong to each response. */
const KEPT_HEADERS = ['content-type', 'location', 'content-disposition'];

export const idempotencyErrors = {
  INVALID_IDEMPOTENCY_KEY: {
    status: 400,
    componentType: 'REQUEST',
    message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    componentType: 'REQUEST',
    message: 'A request with this Idempotency-Key is still being processed; retry shortly',
  },
  IDEMPOTENCY_KEY_ANSWER_LOST: {
    status: 409,
    componentType: 'REQUEST',
    message: 'The request with this Idempotency-Key was written, but the server stopped before answering; read the record',
  },
  IDEMPOTENCY_KEY_MISMATCH: {
    status: 422,
    componentType: 'REQUEST',
    message: 'This Idempotency-Key was used with a different request',
  },
} as const satisfies ErrorCatalog;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof idempotencyErrors> {}
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdempotencyClaim | null;
    /**
     * What the answer shows of patients, as the access log names them: set by the access log for a
     * fresh answer and kept with it; set from the kept answer when one is replayed.
     */
    answerShows: AnswerShows | null;
  }
  interface FastifyContextConfig {
    /**
     * `false`: the route ignores Idempotency-Key, because its answer must never be kept (it shows
     * a secret once). Its docs say why and how a retry stays safe.
     */
    idempotency?: false;
  }
}

/** Whether a route takes Idempotency-Key: a write that needs a token (a caller to scope the key to) and has not opted out. */
export function takesIdempotencyKey(method: string, config: FastifyContextConfig | undefined): boolean {
  return IDEMPOTENT_METHODS.has(method) && Boolean(config?.access && !config.access.public) && config?.idempotency !== false;
}

/** The key a request sends, without the quotes of the draft's structured-field form. */
function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers[IDEMPOTENCY_HEADER];
  if (header === undefined) return undefined;
  const key = (Array.isArray(header) ? header.join(',') : header).trim().replace(/^"(.*)"$/, '$1');
  if (!KEY_SHAPE.test(key)) throw new ApiError('INVALID_IDEMPOTENCY_KEY');
  return key;
}

/**
 * What makes two requests the same: method, path and query, caller, and the body as parsed. A
 * multipart or raw body is streamed to its route, never held, so only its media type counts.
 */
function fingerprint(request: FastifyRequest, callerId: string): string {
  const body =
    request.body === undefined ? `stream:${(request.headers['content-type'] ?? '').split(';')[0]}` : JSON.stringify(request.body);
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.url, callerId, body]))
    .digest('base64url');
}

export function registerIdempotency(app: FastifyInstance, services: Services): void {
  app.decorateRequest('idempotency', null);
  app.decorateRequest('answerShows', null);

  // After validation (a 400 holds no key), before the handler; nothing is read or written yet.
  app.addHook('preHandler', async (request) => {
    if (!takesIdempotencyKey(request.method, request.routeOptions.config) || !request.context?.caller) return;
    const key = keyOf(request);
    if (key === undefined) return;
    const { tenant, caller } = request.context;
    const claim: IdempotencyClaim = {
      tenantId: tenant.id,
      callerId: caller.id,
      key,
      fingerprint: fingerprint(request, caller.id),
      claimId: randomUUID(),
      written: false,
    };
    request.idempotency = claim;
    request.context = { ...request.context, idempotency: claim };
  });

  // The answer as sent (serialized, errors included) is what a retry gets.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = null;
    const body =
      typeof payload === 'string'
        ? Buffer.from(payload)
        : Buffer.isBuffer(payload)
          ? payload
          : payload == null
            ? Buffer.alloc(0)
            : null;
    const now = services.clock.now();
    try {
      if (claim.written) {
        // A stream's answer is not kept: a retry meets a committed key without one (409).
        if (body !== null) await keepAnswer(services.db, claim, answerOf(request, reply, body));
        return payload;
      }
      // This request committed nothing: it keeps a success, and a key another request holds decides.
      if (
        body !== null &&
        reply.statusCode < 400 &&
        (await keepUnwrittenAnswer(services.db, claim, answerOf(request, reply, body), now))
      ) {
        return payload;
      }
      const held = await heldKey(services.db, claim, now);
      return held ? answerFor(request, reply, held) : payload;
    } catch (error) {
      // The write stands; a retry then meets a committed key without an answer (409), never a second write.
      request.log.warn({ code: (error as { code?: string }).code }, 'the idempotency key could not be settled');
      return payload;
    }
  });
}

function answerOf(request: FastifyRequest, reply: FastifyReply, body: Buffer): KeptAnswer {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return { status: reply.statusCode, headers, body, shows: reply.statusCode < 300 ? request.answerShows : null };
}

/** The answer a request gets when another request holds its key, in place of its own (onSend). */
function answerFor(request: FastifyRequest, reply: FastifyReply, held: HeldKey): Buffer | string {
  if (held.kind === 'replay') {
    request.answerShows = held.shows;
    reply.code(held.status).headers(held.headers).header(REPLAYED_HEADER, 'true');
    return held.body;
  }
  const error =
    held.kind === 'mismatch'
      ? new ApiError('IDEMPOTENCY_KEY_MISMATCH')
      : held.kind === 'running'
        ? new ApiError('IDEMPOTENCY_KEY_IN_USE', {}, undefined, { 'Retry-After': '1' })
        : new ApiError('IDEMPOTENCY_KEY_ANSWER_LOST');
  for (const name of KEPT_HEADERS) reply.removeHeader(name);
  reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8');
  return JSON.stringify(errorBody(error));
}

/** The request header every write that takes a key documents (OpenAPI turns it into a parameter). */
export const idempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Makes a retry of this write safe: the first request with a key is run and its answer kept for 24 hours; a repeat with the same key answers it again, byte for byte, with `Idempotent-Replayed: true`. The same key with a different request (method, path, query, body) is 422 IDEMPOTENCY_KEY_MISMATCH; a repeat while the first runs is 409 IDEMPOTENCY_KEY_IN_USE (retry after Retry-After). Keys belong to the caller: another caller’s equal key is its own. A request that fails without writing keeps no key.',
    }),
  ),
});
