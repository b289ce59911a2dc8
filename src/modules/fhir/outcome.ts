import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type ApiError, type ErrorFormat, failureOf } from '../../wire/errors.ts';

/** FHIR's media type: every answer of the FHIR API is JSON in it. */
export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/** A FHIR resource as the routes answer it: its own shape, checked by the tests against the profiles. */
export const Resource = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'A FHIR R4 resource (application/fhir+json)',
});

/** Answers in FHIR's media type, by status: `response: fhirResponses(200, 400, 404)`. */
export function fhirResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: status < 300 ? 'The resource' : 'An OperationOutcome',
        content: { 'application/fhir+json': { schema: Resource } },
      },
    ]),
  );
}

/** Cairn's codes for what this API does not serve: IssueType's `not-supported`, whatever their status. */
const NOT_SUPPORTED = new Set(['FHIR_TYPE_NOT_SUPPORTED', 'FHIR_INTERACTION_NOT_SUPPORTED', 'FHIR_FORMAT_NOT_SUPPORTED']);

/** The issue code (FHIR's IssueType) an error reads as: by its HTTP status, or `not-supported`. */
function issueCode(status: number, code: string): string {
  if (NOT_SUPPORTED.has(code)) return 'not-supported';
  if (status === 401) return 'login';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 409) return 'conflict';
  if (status === 413) return 'too-long';
  if (status === 429) return 'throttled';
  if (status === 503) return 'transient';
  return status < 500 ? 'invalid' : 'exception';
}

/** An OperationOutcome of one error issue; `details.text` carries Cairn's error code. */
export function operationOutcome(status: number, code: string, message: string) {
  return {
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'error', code: issueCode(status, code), details: { text: code }, diagnostics: message }],
  };
}

/** An error as an OperationOutcome: its problems, or its message; a 5xx names its request. */
function outcomeOf(apiError: ApiError) {
  const problems = (apiError.details.errors as { path: string; message: string }[] | undefined) ?? [];
  const message =
    problems.length > 0 ? problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ') : apiError.message;
  const requestId = apiError.details.requestId;
  return operationOutcome(
    apiError.status,
    apiError.errorCode,
    typeof requestId === 'string' ? `${message} (request ${requestId})` : message,
  );
}

const fhirErrors: ErrorFormat = { contentType: FHIR_JSON, body: outcomeOf };

/**
 * Errors of the FHIR API answer OperationOutcome, never the care-management error array: the
 * status, headers (Retry-After) and logging are the API's own (wire/errors.ts), the body FHIR's.
 */
function fhirErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = failureOf(error, request);
  return reply.code(apiError.status).headers(apiError.headers).type(FHIR_JSON).send(outcomeOf(apiError));
}

/**
 * A plugin under the FHIR base answers its errors as OperationOutcomes: those its handlers throw,
 * and those a hook meets after the answer was made (an access record that could not be written).
 */
export function useFhirErrors(app: FastifyInstance): void {
  app.setErrorHandler(fhirErrorHandler);
  app.addHook('onRequest', async (request) => {
    request.errorFormat = fhirErrors;
  });
}
