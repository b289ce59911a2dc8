import type { NamesOf } from '../wire/errors.ts';

/** The files mechanism's error codes, for every area that stores files. */
export const fileErrors = {
  FILE_NOT_FOUND: { status: 404, componentType: 'FILE', message: 'File not found' },
  FILE_TYPE_NOT_ALLOWED: { status: 400, componentType: 'FILE', message: 'This type of file is not accepted here' },
  FILE_CONTENT_MISMATCH: {
    status: 400,
    componentType: 'FILE',
    message: "The file's content is not of the type its name says",
  },
  FILE_TOO_LARGE: { status: 400, componentType: 'FILE', message: 'The file is larger than allowed' },
  TOO_MANY_FILES: { status: 400, componentType: 'FILE', message: 'More files, or more bytes in all, than allowed at once' },
  NO_FILES: { status: 400, componentType: 'FILE', message: 'The request holds no file' },
  LINK_EXPIRED: { status: 403, componentType: 'FILE', message: 'This file link has expired' },
  LINK_INVALID: { status: 403, componentType: 'FILE', message: 'This file link is not valid' },
  RANGE_NOT_SATISFIABLE: { status: 416, componentType: 'FILE', message: 'The requested range is not within the file' },
} as const;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof fileErrors> {}
}
