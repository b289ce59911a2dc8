import { type TSchema, Type } from 'typebox';

/**
 * A body a route reads itself rather than through Fastify's validation: a multipart form streamed
 * to the blob store, a raw email, or JSON beside a form (checked by the handler with the same
 * schema). The route names it by media type in its config, and the OpenAPI document shows it, so
 * generated clients know what to send.
 */
export type RequestBodies = Partial<Record<'application/json' | 'multipart/form-data' | 'message/rfc822', TSchema>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    requestBodies?: RequestBodies;
  }
}

/** A file part, as OpenAPI names one (`format: binary`; the typed client sends a Blob). */
export const FilePart = Type.String({ format: 'binary' });

/** A multipart form: file parts named `part` (repeatable), and the text fields beside them. */
export function uploadForm(part: string, description: string, fields: Record<string, TSchema> = {}) {
  return Type.Object({ ...fields, [part]: Type.Array(FilePart, { description }) });
}
