import { buffer } from 'node:stream/consumers';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sendFile } from '../../files/download.ts';
import { contentTypes } from '../../files/rules.ts';
import { findFile } from '../../files/store.ts';
import { disclose, named } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { compact, isUuid, reference } from '../../http/fhir.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { confinement } from '../../http/scopes.ts';
import { ApiError } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { FHIR_JSON, fhirResponses, useFhirErrors } from '../fhir/index.ts';
import { fileBytes } from '../files/index.ts';
import { documentFiles } from './catalog.ts';
import { SUMMARY_FILES } from './types.ts';

/**
 * FHIR's `Binary/{id}`: a document's file, which its DocumentReference's attachment links to
 * (fhir.ts). A read with no search, so it is this area's route rather than a declared resource,
 * under the FHIR API's error handler. A client asking for anything but FHIR JSON gets the bytes,
 * streamed in their own content type; one asking for `application/fhir+json` gets a Binary
 * resource, its bytes in `data`, when the file is small enough to hold whole (INLINE_BYTES), and
 * the bytes otherwise.
 */

/**
 * The largest file answered inside a Binary resource: base64 makes its JSON a third larger, and
 * the whole of it is held in memory while it is sent. A document's file may be 25 MB; those past
 * this stream as bytes, which hold none of it.
 */
export const INLINE_BYTES = 1024 * 1024;

const BinaryParams = Type.Object({ ...InstanceParams.properties, id: Type.String({ maxLength: 64 }) });
const DocumentBytes = fileBytes(documentFiles.DOCUMENT_SUMMARY.rules.extensions.map((extension) => contentTypes[extension]!));
const errors = fhirResponses(400, 401, 403, 404, 416, 429, 503);

/** Whether the client asked for FHIR JSON (`Accept: application/fhir+json`, among others or not). */
const wantsFhirJson = (request: FastifyRequest) => /application\/fhir\+json/i.test(request.headers.accept ?? '');

const binaryRoutes: AreaPlugin = async (app, { services }) => {
  useFhirErrors(app);

  app.get(
    '/:tenantName/:instanceName/fhir/R4/Binary/:id',
    {
      // A token scoped for SMART reads a DocumentReference's files under its scope.
      config: needs(documentFiles.DOCUMENT_SUMMARY.readPermission, { discloses: named('FILE'), scope: 'DocumentReference.r' }),
      schema: {
        tags: ['FHIR R4'],
        summary: "A document's file as FHIR's Binary: its bytes, or with Accept: application/fhir+json a Binary resource",
        description: `The file a DocumentReference's \`content.attachment.url\` links to. Its bytes, streamed in the content type it was stored with (HTTP Range supported: 206, 416), unless the client asks for \`application/fhir+json\`: then a Binary resource with the bytes base64 in \`data\`, for a file of up to ${INLINE_BYTES} bytes (a larger one still answers its bytes). A file that is not a document's is 404 FILE_NOT_FOUND, as another tenant's.`,
        params: BinaryParams,
        response: {
          ...errors,
          200: { ...DocumentBytes, content: { ...DocumentBytes.content, ...errors[404]!.content } },
          206: DocumentBytes,
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { id } = request.params;
      const file = isUuid(id) ? await findFile(ctx.db, ctx.scope, id) : undefined;
      // Other areas' files (a chat's, an email's) need their own permissions: not served here.
      // A token confined to a patient reads that patient's documents' files only, as their DocumentReferences.
      const confined = confinement(ctx.caller, 'DocumentReference', 'r');
      const outside = confined !== undefined && file?.patient_id !== confined.patient;
      if (!file || file.owner_kind !== SUMMARY_FILES || outside) throw new ApiError('FILE_NOT_FOUND', { fileId: id });
      disclose(request, [file.patient_id], [file.id]);
      const size = Number(file.size);
      if (!wantsFhirJson(request) || size > INLINE_BYTES) return sendFile(request, reply, services.files.blobs, file);
      const bytes = size === 0 ? Buffer.alloc(0) : await buffer(await services.files.blobs.get(file.storage_key));
      reply.type(FHIR_JSON);
      return compact({
        resourceType: 'Binary',
        id: file.id,
        meta: { lastUpdated: file.created_at.toISOString() },
        contentType: file.content_type,
        // Who may read it is who may read its document.
        securityContext: reference('DocumentReference', file.owner_id),
        data: bytes.length > 0 ? bytes.toString('base64') : undefined,
      });
    },
  );
};

export default binaryRoutes;
