import type { FastifyRequest } from 'fastify';
import type { Api } from '../../http/plugin.ts';
import { ApiError } from '../../wire/errors.ts';

/**
 * What the FHIR API reads and answers besides its routes' schemas: the format asked for (JSON
 * only) and the form body of a search by POST.
 */

/**
 * Media types Cairn's FHIR JSON satisfies. R4 http.html (Content Types and encodings): FHIR's own
 * and the generic JSON types; servers are encouraged to take DSTU2's `application/json+fhir` too.
 */
const JSON_TYPES = new Set(['application/fhir+json', 'application/json', 'application/json+fhir', 'text/json']);
const ANY = new Set(['*/*', 'application/*']);

const mediaType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/** Whether one Accept entry takes FHIR JSON: a JSON type or a wildcard, not refused with `q=0`. */
function takesJson(entry: string): boolean {
  const type = mediaType(entry);
  const q = /;\s*q\s*=\s*([\d.]+)/i.exec(entry)?.[1];
  return (JSON_TYPES.has(type) || ANY.has(type)) && (q === undefined || Number(q) > 0);
}

/** Whether the client takes FHIR JSON; R4 http.html: `_format` overrides Accept (for clients that cannot set headers). */
export function acceptsFhirJson(format: unknown, accept: string | undefined): boolean {
  const asked = [format].flat()[0];
  if (typeof asked === 'string' && asked !== '') return asked.toLowerCase() === 'json' || JSON_TYPES.has(mediaType(asked));
  return accept === undefined || accept.trim() === '' || accept.split(',').some(takesJson);
}

/** onRequest: a client that takes no JSON (`Accept: application/fhir+xml`, `_format=xml`) is 406, before anything is read. */
export async function negotiateFormat(request: FastifyRequest): Promise<void> {
  const { _format } = request.query as { _format?: unknown };
  if (!acceptsFhirJson(_format, request.headers.accept)) {
    throw new ApiError(
      'FHIR_FORMAT_NOT_SUPPORTED',
      { accept: request.headers.accept ?? null, format: _format ?? null },
      'This FHIR API answers application/fhir+json only (Accept or _format asked for another format)',
    );
  }
}

/** A search's parameters: one value, or several for a repeated name (AND). */
export type SearchParams = Record<string, string | string[]>;

/**
 * R4 http.html (search): a search by POST sends its parameters as a form,
 * `application/x-www-form-urlencoded`; a name may repeat, as in a URL. No other body is read
 * here (JSON: 415), so a search means the same whichever way it is sent.
 */
export function acceptSearchForms(app: Api): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, mergeParams(new URLSearchParams(String(body)))),
  );
}

/**
 * Parameters from several places (the URL's, then the form's) as one set, a name given more than
 * once keeping every value: R4 http.html (search) has the server use both.
 */
export function mergeParams(...sources: Iterable<[string, unknown]>[]): SearchParams {
  const merged = new Map<string, string[]>();
  for (const source of sources) {
    for (const [name, value] of source) {
      const values = [value].flat().map(String);
      merged.set(name, [...(merged.get(name) ?? []), ...values]);
    }
  }
  // A Map, then fromEntries: a parameter named __proto__ stays a parameter.
  return Object.fromEntries([...merged].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]));
}
