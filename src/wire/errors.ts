import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { connectionErrorCode, isConnectionError } from '../db/availability.ts';
import { type Violation, violationOf } from '../db/violations.ts';

export interface ErrorEntry {
  status: number;
  componentType: string;
  message: string;
}

export type ErrorCatalog = Record<string, ErrorEntry>;

/**
 * The error codes of the shared mechanisms (DECISIONS §2). Each area declares its own beside its
 * routes (`modules/<area>/catalog.ts`), and the app merges them into one catalog, each code once,
 * which the API docs list. Codes marked (prod) are matched by existing clients and must not
 * change: two of them make a client refresh its token.
 */
export const coreErrors = {
  // 400
  VALIDATION_ERROR: { status: 400, componentType: 'REQUEST', message: 'The request is not valid' },
  MALFORMED_JSON: { status: 400, componentType: 'REQUEST', message: 'The body is not valid JSON' },
  INVALID_SORT: { status: 400, componentType: 'REQUEST', message: 'The sort is not supported' },
  INVALID_PAGE_TOKEN: { status: 400, componentType: 'REQUEST', message: 'The page token is not valid' },
  BAD_REQUEST: { status: 400, componentType: 'REQUEST', message: 'The request could not be understood' },
  REFERENCED_RECORD_NOT_FOUND: {
    status: 400,
    componentType: 'REQUEST',
    message: 'The request refers to a record that does not exist',
  },
  // 401 (prod): a client refreshes its token on the first two, so the token routes never use them.
  NOT_VALID_JSON_WEB_TOKEN: { status: 401, componentType: 'AUTH', message: 'Not valid JWT' },
  TOKEN_EXPIRED: { status: 401, componentType: 'AUTH', message: 'Token has expired' },
  // 403
  ACCESS_DENIED: { status: 403, componentType: 'AUTH', message: 'The caller lacks the permission this needs' },
  ACCESS_FOR_API_CLIENT_RESTRICTED: {
    status: 403,
    componentType: 'AUTH',
    message: 'Access to this API is restricted for the APIClient',
  },
  TENANT_ACCESS_DENIED: { status: 403, componentType: 'TENANCY', message: 'The token is for another tenant' },
  INSTANCE_ACCESS_DENIED: { status: 403, componentType: 'TENANCY', message: 'The caller may not use this instance' },
  // 404
  ROUTE_NOT_FOUND: { status: 404, componentType: 'SERVER', message: 'No such route' },
  TENANT_NOT_FOUND: { status: 404, componentType: 'TENANCY', message: 'Tenant not found' },
  INSTANCE_NOT_FOUND: { status: 404, componentType: 'TENANCY', message: 'Instance not found' },
  // Every write under a patient answers it (records/patient-scope.ts).
  PATIENT_NOT_FOUND: { status: 404, componentType: 'PATIENT', message: "Patient doesn't exist" },
  // 409
  DUPLICATE_VALUE: { status: 409, componentType: 'REQUEST', message: 'A record with this value already exists' },
  RECORD_IN_USE: { status: 409, componentType: 'REQUEST', message: 'Other records still refer to this one' },
  CONCURRENT_CHANGE: {
    status: 409,
    componentType: 'REQUEST',
    message: 'The request conflicted with a concurrent change; retry it',
  },
  // 413, 415, 429
  PAYLOAD_TOO_LARGE: { status: 413, componentType: 'REQUEST', message: 'The body is larger than allowed' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, componentType: 'REQUEST', message: 'The content type is not supported' },
  TOO_MANY_REQUESTS: { status: 429, componentType: 'AUTH', message: 'Too many requests; retry later' },
  // 500: always a bug or an outage; never carries internals.
  INTERNAL_ERROR: { status: 500, componentType: 'SERVER', message: 'Internal server error' },
  // 503: the database is unreachable or dropped the connection; the request may be retried.
  SERVICE_UNAVAILABLE: {
    status: 503,
    componentType: 'SERVER',
    message: 'The service cannot reach its database; retry shortly',
  },
} as const satisfies ErrorCatalog;

/**
 * Every code any part declares. An area adds its own with
 * `declare module '.../wire/errors.ts' { interface ErrorCodes extends NamesOf<typeof areaErrors> {} }`,
 * so `new ApiError('A_TYPO')` does not compile.
 */
export interface ErrorCodes extends NamesOf<typeof coreErrors> {}
/** The names of a catalog, as the key set an augmented interface extends. */
export type NamesOf<T> = Record<keyof T & string, true>;
export type ErrorCode = keyof ErrorCodes & string;

const registered = new Map<string, ErrorEntry>(Object.entries(coreErrors));

/** Makes codes known at run time (the app merges each area's once); a code means one thing only. */
export function registerErrors(catalog: ErrorCatalog): void {
  for (const [code, entry] of Object.entries(catalog)) {
    const known = registered.get(code);
    if (known && JSON.stringify(known) !== JSON.stringify(entry)) throw new Error(`error code ${code} is declared twice`);
    registered.set(code, entry);
  }
}

/** Every code known, for the API docs. */
export function errorCatalog(): ReadonlyMap<string, ErrorEntry> {
  return registered;
}

export class ApiError extends Error {
  readonly status: number;
  readonly componentType: string;

  constructor(
    readonly errorCode: ErrorCode,
    readonly details: Record<string, unknown> = {},
    message?: string,
    /** Extra response headers, such as Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    // Every code is registered before a request is served; an unknown one can only be a bug.
    const entry = registered.get(errorCode) ?? coreErrors.INTERNAL_ERROR;
    super(message ?? entry.message);
    this.status = entry.status;
    this.componentType = entry.componentType;
  }
}

/** One field problem, as listed in VALIDATION_ERROR's details.errors. */
export interface FieldError {
  path: string;
  message: string;
}

export function validationError(errors: FieldError[], message?: string): ApiError {
  return new ApiError('VALIDATION_ERROR', { errors }, message ?? errors.map((e) => `${e.path}: ${e.message}`).join('; '));
}

export function badField(path: string, message: string): ApiError {
  return validationError([{ path, message }]);
}

export const ErrorBody = Type.Array(
  Type.Object({
    errorCode: Type.String(),
    componentType: Type.String(),
    message: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
    date: Type.String({ format: 'date-time' }),
  }),
  { description: 'DECISIONS §2: an array holding one error object.' },
);

interface ErrorEnvelope {
  errorCode: string;
  componentType: string;
  message: string;
  details: Record<string, unknown>;
  date: string;
}

export function errorBody(error: ApiError): ErrorEnvelope[] {
  return [
    {
      errorCode: error.errorCode,
      componentType: error.componentType,
      message: error.message,
      details: error.details,
      date: new Date().toISOString(),
    },
  ];
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  // The body is written as a string: a route's own response schema must not reshape an error.
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .serializer((payload) => JSON.stringify(payload))
    .send(errorBody(error));
}

/** Fastify's own error codes that mean the client sent something wrong. */
const fastifyClientErrors: Record<string, (error: FastifyError) => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ApiError('MALFORMED_JSON'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new ApiError('MALFORMED_JSON', {}, 'The body is empty but the content type is application/json'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new ApiError('UNSUPPORTED_MEDIA_TYPE'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('BAD_REQUEST', {}, 'Content-Length does not match the body'),
};

/** PostgreSQL errors that bad input can cause despite validation; anything else is a bug. */
function fromDatabaseError(error: { code?: unknown }): ApiError | undefined {
  if (typeof error.code !== 'string' || !/^[0-9A-Z]{5}$/.test(error.code)) return undefined;
  const violation = violationOf(error);
  if (violation?.code === '23505') return new ApiError('DUPLICATE_VALUE', { constraint: violation.constraint });
  if (violation?.code === '23503') return fromForeignKeyError(violation);
  // Serialization failures and deadlocks: nothing was written, and the same request may succeed now.
  if (error.code === '40001' || error.code === '40P01')
    return new ApiError('CONCURRENT_CHANGE', {}, undefined, { 'Retry-After': '1' });
  // Class 22 is "data exception": a value the column cannot hold (too long, out of range, bad format).
  if (error.code.startsWith('22')) {
    return new ApiError('VALIDATION_ERROR', { errors: [] }, 'A value is not valid for its field');
  }
  return undefined;
}

/**
 * A foreign key violation, in one place: writes under a patient hold the patient (records/
 * patient-scope.ts), so one that still happens is input naming a record that is not there (or a
 * delete of one still referred to). The detail names the table (never the values, which may be
 * PHI): a missing patient is PATIENT_NOT_FOUND, as the patient-scoped routes answer.
 */
function fromForeignKeyError({ table, detail }: Violation): ApiError {
  if (/is still referenced/.test(detail)) return new ApiError('RECORD_IN_USE', { table });
  if (table === 'patients') return new ApiError('PATIENT_NOT_FOUND');
  return new ApiError('REFERENCED_RECORD_NOT_FOUND', { table });
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const context = fastifyError.validationContext ?? 'body';
    return validationError(
      fastifyError.validation.map((issue) => {
        const missing = (issue.params as { requiredProperties?: string[]; missingProperty?: string } | undefined) ?? {};
        const property = missing.requiredProperties?.[0] ?? missing.missingProperty;
        const pointer = issue.instancePath.split('/').filter(Boolean).join('.');
        const path = [context, pointer, issue.keyword === 'required' ? property : undefined].filter(Boolean).join('.');
        return { path, message: issue.message ?? 'is not valid' };
      }),
    );
  }
  if (fastifyError.code && fastifyClientErrors[fastifyError.code]) {
    return fastifyClientErrors[fastifyError.code]!(fastifyError);
  }
  if (isConnectionError(error)) return new ApiError('SERVICE_UNAVAILABLE', {}, undefined, { 'Retry-After': RETRY_AFTER_SECONDS });
  const fromDatabase = fromDatabaseError(error as { code?: unknown });
  if (fromDatabase) return fromDatabase;
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError('BAD_REQUEST', {}, fastifyError.message);
  }
  return new ApiError('INTERNAL_ERROR');
}

/** A database restart takes a few seconds; clients back off from there (000: 429 and 503 alike). */
const RETRY_AFTER_SECONDS = '5';

/** The single place where every error becomes the wire format. */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, failureOf(error, request));
}

/**
 * What a failure answers, logged: its ApiError, and for a 5xx the request's id beside the generic
 * message, so an operator finds the log line; the driver's own text goes to the log, never the body.
 */
export function failureOf(error: unknown, request: FastifyRequest): ApiError {
  const apiError = toApiError(error);
  logFailure(error, apiError, request);
  if (apiError.status < 500) return apiError;
  return new ApiError(apiError.errorCode, { ...apiError.details, requestId: request.id }, undefined, apiError.headers);
}

/**
 * The answer a hook gives in place of the one it was sending (onSend), when what it had to do
 * first failed: the error handler's body, set here, because an error thrown from onSend after an
 * error answer would reach Fastify's default handler, which renders the error's own message.
 */
export function failureAnswer(error: unknown, request: FastifyRequest, reply: FastifyReply): string {
  const apiError = failureOf(error, request);
  for (const name of ANSWER_HEADERS) reply.removeHeader(name);
  const format = request.errorFormat;
  reply
    .code(apiError.status)
    .headers(apiError.headers)
    .type(format?.contentType ?? 'application/json; charset=utf-8');
  return JSON.stringify(format ? format.body(apiError) : errorBody(apiError));
}

/** Headers of the answer an error replaces, which would misdescribe the error. */
const ANSWER_HEADERS = [
  'content-disposition',
  'content-length',
  'content-range',
  'etag',
  'idempotent-replayed',
  'last-modified',
  'location',
];

/**
 * How an API with an error format of its own writes an error (FHIR's OperationOutcome), for the
 * answers its error handler does not render (failureAnswer). Its routes set it on each request.
 */
export interface ErrorFormat {
  contentType: string;
  body(error: ApiError): unknown;
}

declare module 'fastify' {
  interface FastifyRequest {
    errorFormat: ErrorFormat | null;
  }
}

/** A failure the server is to blame for is logged: its class and code, never its message. */
export function logFailure(error: unknown, apiError: ApiError, request: FastifyRequest): void {
  if (apiError.errorCode === 'SERVICE_UNAVAILABLE') {
    request.log.warn({ code: connectionErrorCode(error) }, 'database unavailable');
  } else if (apiError.status >= 500) {
    // Log the class and code only: driver messages can quote row values, and rows hold PHI.
    const e = error as { name?: string; code?: string; stack?: string };
    request.log.error(
      { err: { type: e.name, code: e.code, stack: e.stack?.split('\n').slice(1, 6).join('\n') } },
      'request failed',
    );
  }
}

/**
 * Statuses any route can answer whatever its area says, documented on every route in one place so
 * that clients and schema checkers expect them: 503 (the database is away) everywhere, 413 and
 * 415 wherever a body is read.
 */
export function documentCommonErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (!schema || (schema as { hide?: boolean }).hide) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const readsBody = methods.some((method) => method === 'POST' || method === 'PUT' || method === 'PATCH');
    schema.response = {
      ...(readsBody ? { 413: ErrorBody, 415: ErrorBody } : {}),
      503: ErrorBody,
      ...(schema.response as object | undefined),
    };
  });
}
