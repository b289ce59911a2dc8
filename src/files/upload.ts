import { createHash } from 'node:crypto';
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { uuidv7 } from '../db/ids.ts';
import { ApiError } from '../wire/errors.ts';
import type { BlobStore } from './blob-store.ts';
import { contentTypes, extensionOf, type FileRules } from './rules.ts';

/** A file written to the blob store by this request, not yet recorded in the database. */
export interface StoredFile {
  id: string;
  originalName: string;
  contentType: string;
  size: number;
  storageKey: string;
  sha256: string;
}

/** file-type reads at most this many leading bytes to judge a type. */
const SNIFF_BYTES = 4100;

/** What a form carried besides files: its text fields (the last value of each name). */
export type FormFields = Record<string, string>;

export interface ReceiveOptions {
  /** The name of the file parts (`files`; chat's `attachmentAsFiles`). */
  field?: string;
  /** A form may hold no file at all (a chat message with text only); by default one is needed. */
  optional?: boolean;
}

/**
 * Streams the multipart parts named `field` of a request into the blob store, one at a time,
 * checking each against the area's rules as its bytes pass: the extension, the content behind it
 * (by its first bytes), the size of each file, their number and their total. Nothing is buffered
 * beyond the first 4 KB. On any failure every blob this request wrote is removed before the error
 * is thrown; on success the caller records the files, and must remove them if that fails
 * (`keepFiles`).
 */
export async function receiveFiles(
  request: FastifyRequest,
  blobs: BlobStore,
  rules: FileRules,
  keyOf: (fileId: string) => string,
  { field = 'files', optional = false }: ReceiveOptions = {},
): Promise<{ files: StoredFile[]; fields: FormFields }> {
  if (!request.isMultipart()) {
    throw new ApiError('NO_FILES', { part: field }, `Send the files as multipart/form-data, in parts named "${field}"`);
  }
  const stored: StoredFile[] = [];
  const fields: FormFields = {};
  let total = 0;
  try {
    const parts = request.parts({
      // busboy's own limits sit one past Cairn's, so Cairn's checks answer first, with their codes.
      limits: { fileSize: rules.maxFileBytes + 1, files: rules.maxFiles + 1, fields: 20, fieldSize: 64 * 1024 },
    });
    for await (const part of parts) {
      if (part.type !== 'file') {
        // Text parts come before or between files; busboy's fieldSize limit bounds each.
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== field) {
        part.file.resume();
        throw new ApiError('NO_FILES', { part: part.fieldname }, `Files go in parts named "${field}"`);
      }
      if (stored.length >= rules.maxFiles) {
        part.file.resume();
        throw new ApiError('TOO_MANY_FILES', { maxFiles: rules.maxFiles });
      }
      const file = await storeFile(blobs, rules, keyOf, part.filename, part.file, rules.maxTotalBytes - total);
      total += file.size;
      stored.push(file);
    }
    if (stored.length === 0 && !optional)
      throw new ApiError('NO_FILES', { part: field }, `The request holds no part named "${field}"`);
    return { files: stored, fields };
  } catch (error) {
    await removeQuietly(blobs, stored);
    throw asLimitError(error, rules);
  }
}

/**
 * Streams one file into the blob store, judged as it passes against the owner's rules (its
 * extension, the content behind it, its size and what is left of the request's total); a file
 * that fails leaves no blob. For uploads (receiveFiles) and files that arrive otherwise (an
 * inbound email's attachments).
 */
export async function storeFile(
  blobs: BlobStore,
  rules: FileRules,
  keyOf: (fileId: string) => string,
  fileName: string,
  stream: Readable,
  remainingTotal: number,
): Promise<StoredFile> {
  const extension = extensionOf(fileName);
  const expected = contentTypes[extension];
  if (!expected || !rules.extensions.includes(extension)) {
    stream.resume();
    throw new ApiError('FILE_TYPE_NOT_ALLOWED', { extension, allowed: rules.extensions });
  }
  const id = uuidv7();
  const storageKey = keyOf(id);
  const check = new FileCheck(expected, extension, rules.maxFileBytes, remainingTotal);
  const source = pipeline(stream, check, () => {});
  try {
    await blobs.put(storageKey, source, expected);
  } catch (error) {
    await blobs.remove([storageKey]).catch(() => {});
    throw check.failure ?? error;
  }
  return { id, originalName: fileName, contentType: expected, size: check.size, storageKey, sha256: check.digest() };
}

/** busboy's limits (one past Cairn's) answer in the files mechanism's codes too. */
function asLimitError(error: unknown, rules: FileRules): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new ApiError('FILE_TOO_LARGE', { maxBytes: rules.maxFileBytes });
  if (code === 'FST_FILES_LIMIT') return new ApiError('TOO_MANY_FILES', { maxFiles: rules.maxFiles });
  return error;
}

/**
 * Runs `work` with files already in the blob store; if it fails (the database write, a rule), the
 * files are removed before the error goes on, so a failed request leaves no blob behind.
 */
export async function keepFiles<T>(blobs: BlobStore, files: readonly StoredFile[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await removeQuietly(blobs, files);
    throw error;
  }
}

async function removeQuietly(blobs: BlobStore, files: readonly StoredFile[]): Promise<void> {
  // A blob that cannot be removed now is only storage; the request's own error matters more.
  await blobs.remove(files.map((file) => file.storageKey)).catch(() => {});
}

/** Passes bytes through while counting, hashing and judging the first of them. */
class FileCheck extends Transform {
  size = 0;
  failure: ApiError | undefined;
  private readonly hash = createHash('sha256');
  private head: Buffer[] = [];
  private headBytes = 0;
  private judged = false;

  constructor(
    private readonly expected: string,
    private readonly extension: string,
    private readonly maxBytes: number,
    private readonly remainingTotal: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(this.fail(new ApiError('FILE_TOO_LARGE', { maxBytes: this.maxBytes })));
    } else if (this.size > this.remainingTotal) {
      done(this.fail(new ApiError('TOO_MANY_FILES', { maxTotalBytes: this.remainingTotal })));
    } else if (this.judged) {
      this.hash.update(chunk);
      done(null, chunk);
    } else {
      this.hash.update(chunk);
      this.head.push(chunk);
      this.headBytes += chunk.length;
      if (this.headBytes < SNIFF_BYTES) done();
      else this.judgeAndRelease(done);
    }
  }

  override _flush(done: TransformCallback): void {
    if (this.judged) done();
    else this.judgeAndRelease(done);
  }

  private judgeAndRelease(done: TransformCallback): void {
    this.judge().then(
      () => done(null, this.release()),
      (error: Error) => done(error),
    );
  }

  digest(): string {
    return this.hash.digest('hex');
  }

  private async judge(): Promise<void> {
    this.judged = true;
    // Loaded by the first upload a process checks, not at start.
    const { fileTypeFromBuffer } = await import('file-type');
    const found = await fileTypeFromBuffer(Buffer.concat(this.head));
    if (found?.mime !== this.expected) {
      throw this.fail(
        new ApiError('FILE_CONTENT_MISMATCH', { extension: this.extension, expected: this.expected, found: found?.mime ?? null }),
      );
    }
  }

  private release(): Buffer {
    const head = Buffer.concat(this.head);
    this.head = [];
    return head;
  }

  private fail(error: ApiError): ApiError {
    this.failure = error;
    return error;
  }
}
