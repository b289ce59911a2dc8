import { Type } from 'typebox';
import { contentTypes } from '../../files/rules.ts';
import { InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';

/** The wire contract of files (002 "File entry"; PROD-SHAPES "Document summary" files). */

export const FileEntry = Type.Object({
  id: Uuid,
  size: Type.Integer({ description: 'Bytes' }),
  storageKey: Type.String({ description: '`<tenant>/<instance>/patients/<patientId>/documents/<uuid>` for documents' }),
  contentType: Type.String({ description: 'The media type, judged from the content on upload' }),
  originalName: Type.String(),
});

export const LinkedFileEntry = Type.Object({
  ...FileEntry.properties,
  url: Type.String({ description: 'Fetch the bytes without a token until the link expires, 5 minutes after it was made' }),
  thumbnailUrl: Nullable(Type.String({ description: 'Always null: Cairn keeps no thumbnails' })),
});

export const FileParams = Type.Object({ ...InstanceParams.properties, fileId: Uuid });

export const LinkParams = Type.Object({ fileId: Uuid });
export const LinkQuery = Type.Object({
  tenant: Uuid,
  instance: Uuid,
  by: Type.String({ maxLength: 100, description: 'Who issued the link (`USER:<id>`, `API_CLIENT:<id>`, `SYSTEM:<what>`)' }),
  expires: Type.Integer({ description: 'Unix seconds' }),
  signature: Type.String({ maxLength: 100 }),
});

const Bytes = Type.Unsafe<unknown>({ type: 'string', format: 'binary' });

/**
 * A binary answer in each media type the files may have, for the API docs: the bytes are
 * streamed, never serialized.
 */
export function fileBytes(mediaTypes: readonly string[]) {
  return {
    description: 'The file, in the content type it was stored with',
    content: Object.fromEntries([...new Set(mediaTypes)].map((type) => [type, { schema: Bytes }])),
  };
}

/** Every type a file of any area may have. */
export const FileBytes = fileBytes(Object.values(contentTypes));
