import type { FastifyRequest } from 'fastify';
import type { Work } from '../events/work.ts';
import { type FileOwnerRef, type FileRow, insertFiles } from '../files/store.ts';
import { type FormFields, keepFiles, type ReceiveOptions, receiveFiles } from '../files/upload.ts';
import type { Context } from '../http/context.ts';
import { write } from '../work/write.ts';
import { withPatient } from './patient-scope.ts';

/** Files for a record: the owner (a kind declared on an `Area`), and where in the store their blobs go. */
export interface Attachment extends FileOwnerRef {
  /** The storage key prefix; each blob is `<prefix>/<fileId>`. */
  keyPrefix: string;
}

/**
 * The one way an area attaches uploaded files to a record: the multipart parts named `files` (or
 * `options.field`) are streamed into the blob store and checked against the owner kind's declared
 * rules as they pass; then, in one write (under the patient, when the owner has one), their rows
 * are inserted and `record` makes the change they belong to, with the form's text fields at hand
 * (a chat message's text). If anything fails, the blobs written are removed. Check the owner
 * exists before calling, so no byte is stored for a missing record.
 */
export async function attachFiles<T>(
  ctx: Context,
  request: FastifyRequest,
  attachment: Attachment,
  record: (w: Work, files: FileRow[], fields: FormFields) => Promise<T>,
  options: ReceiveOptions = {},
): Promise<T> {
  const owner = ctx.services.fileOwners.get(attachment.kind);
  if (!owner) throw new Error(`no area declares the file owner ${attachment.kind}`);
  const { blobs } = ctx.services.files;
  const { files: stored, fields } = await receiveFiles(
    request,
    blobs,
    owner.rules,
    (fileId) => `${attachment.keyPrefix}/${fileId}`,
    options,
  );
  const link = async (w: Work) => record(w, await insertFiles(w, ctx.scope, attachment, stored), fields);
  return keepFiles(blobs, stored, () => (attachment.patientId ? withPatient(ctx, attachment.patientId, link) : write(ctx, link)));
}
