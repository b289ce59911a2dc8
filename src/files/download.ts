import type { FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';
import { ApiError } from '../wire/errors.ts';
import type { BlobStore } from './blob-store.ts';
import { contentDisposition } from './disposition.ts';
import type { FileRow } from './store.ts';

/**
 * Answers a file's bytes, streamed from the store, with its stored content type and length. One
 * byte range (`Range: bytes=a-b`, `a-`, `-n`) is a 206 with `Content-Range`; a range wholly past
 * the end is a 416 naming the size; a malformed header, or several ranges, get the whole file
 * (RFC 9110 lets a server ignore Range).
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  blobs: BlobStore,
  file: Pick<FileRow, 'size' | 'content_type' | 'sha256' | 'original_name' | 'storage_key'>,
) {
  const size = Number(file.size);
  reply
    .header('content-type', file.content_type)
    .header('accept-ranges', 'bytes')
    .header('etag', `"${file.sha256}"`)
    .header('content-disposition', contentDisposition(file.original_name, 'inline'));
  const header = request.headers.range;
  const ranges = header ? parseRange(size, header, { combine: true }) : -2;
  if (ranges === -1) {
    reply.header('content-range', `bytes */${size}`);
    throw new ApiError('RANGE_NOT_SATISFIABLE', { size });
  }
  if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
    const { start, end } = ranges[0]!;
    reply
      .code(206)
      .header('content-range', `bytes ${start}-${end}/${size}`)
      .header('content-length', end - start + 1);
    return reply.send(await blobs.get(file.storage_key, { start, end }));
  }
  reply.header('content-length', size);
  // An empty file has no byte to read, and S3 refuses the range a read of it would be.
  return reply.send(size === 0 ? '' : await blobs.get(file.storage_key));
}
