/** One error object of Cairn's error body (DECISIONS §2: the body is an array holding one). */
export interface ApiErrorObject {
  errorCode: string;
  componentType?: string;
  message?: string;
  details?: Record<string, unknown>;
  date?: string;
}

/** An answer that was not 2xx: its status, and Cairn's error code and message when the body had them. */
export class CairnError extends Error {
  override readonly name = 'CairnError';
  /** The error code (`PATIENT_NOT_FOUND`, `TOO_MANY_REQUESTS`, …), or `HTTP_<status>` when the body had none. */
  readonly errorCode: string;
  readonly details: Record<string, unknown>;

  constructor(
    readonly status: number,
    /** The parsed body as it came. */
    readonly body: unknown,
  ) {
    const first = errorObjectOf(body);
    super(first?.message ? `${status} ${first.errorCode}: ${first.message}` : `${status} ${first?.errorCode ?? 'HTTP error'}`);
    this.errorCode = first?.errorCode ?? `HTTP_${status}`;
    this.details = first?.details ?? {};
  }
}

/** The error object of a body, whether the array Cairn sends or one object. */
export function errorObjectOf(body: unknown): ApiErrorObject | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === 'object' && first !== null && typeof (first as ApiErrorObject).errorCode === 'string'
    ? (first as ApiErrorObject)
    : undefined;
}

/**
 * The data of an openapi-fetch call, or a CairnError for any answer that is not 2xx:
 * `const patient = await unwrap(cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}', {...}))`.
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new CairnError(response.status, error);
  return data as T;
}
