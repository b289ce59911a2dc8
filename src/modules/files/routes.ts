import { sendFile } from '../../files/download.ts';
import { issuerOf, LINK_PATH, linkIssue, requestOrigin } from '../../files/links.ts';
import { findFile } from '../../files/store.ts';
import { disclose, named } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ApiError, ErrorBody } from '../../wire/errors.ts';
import { FileBytes, FileParams, LinkedFileEntry, LinkParams, LinkQuery } from './schemas.ts';

const tags = ['Files'];

/** 002 `GET /files/{fileId}`, and the signed links Cairn serves for the filesystem store. */
const fileRoutes: AreaPlugin = async (app, { services }) => {
  app.get(
    '/:tenantName/:instanceName/files/:fileId',
    {
      config: needs('FILE_READ', { discloses: named('FILE') }),
      schema: {
        tags,
        summary: "A file's entry with a fresh link",
        description:
          "`url` fetches the bytes without a token for 5 minutes (000); `thumbnailUrl` is null. The caller also needs the read permission of the file's owner (DOCUMENT_READ for a document's file); without it the file is 404, as for a file of another tenant.",
        params: FileParams,
        response: { 200: LinkedFileEntry, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const file = await findFile(ctx.db, ctx.scope, request.params.fileId);
      const permission = file && services.fileOwners.get(file.owner_kind)?.readPermission;
      if (!file || !permission || !ctx.can(permission)) throw new ApiError('FILE_NOT_FOUND', { fileId: request.params.fileId });
      disclose(request, [file.patient_id], [file.id]);
      return services.files.withLink(file, linkIssue(requestOrigin(request), services.clock.now(), ctx.actor));
    },
  );

  app.get(
    `${LINK_PATH}/:fileId`,
    {
      // The link is the credential: its use is recorded on behalf of its issuer, not when it was issued.
      config: { access: { public: true, discloses: named('FILE') } },
      schema: {
        tags,
        summary: 'The bytes behind a signed link',
        description:
          'Open without a token: the link itself is the credential, signed and valid for 5 minutes. A changed link is 403 LINK_INVALID, an old one 403 LINK_EXPIRED. HTTP Range is supported.',
        params: LinkParams,
        querystring: LinkQuery,
        response: { 200: FileBytes, 206: FileBytes, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 416: ErrorBody },
      },
    },
    async (request, reply) => {
      const target = services.files.links.verify(request.params.fileId, request.query, services.clock.now());
      const file = await findFile(services.db, { tenantId: target.tenantId, instanceId: target.instanceId }, target.fileId);
      if (!file) throw new ApiError('FILE_NOT_FOUND', { fileId: target.fileId });
      const issuer = issuerOf(target.by);
      request.accessAttempt = {
        actor: { type: 'LINK', id: issuer.id, name: null, onBehalfOf: target.by },
        tenantId: target.tenantId,
        instanceId: target.instanceId,
      };
      disclose(request, [file.patient_id], [file.id]);
      return sendFile(request, reply, services.files.blobs, file);
    },
  );
};

export default fileRoutes;
