import type { Readable } from 'node:stream';
import { DeleteObjectsCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileStoreSettings } from '../config.ts';
import type { BlobStore, ByteRange } from './blob-store.ts';

export type S3Settings = Extract<FileStoreSettings, { driver: 's3' }>;

/** S3 accepts at most 1000 keys per DeleteObjects. */
const DELETE_BATCH = 1000;

/**
 * Blobs as objects in one bucket. Uploads go through the SDK's multipart `Upload`, which holds at
 * most `queueSize` parts of `partSize` in memory whatever the file's size; an aborted upload is
 * aborted on S3 too, so nothing is left.
 */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
    });
  }

  async put(key: string, body: Readable, contentType: string): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.settings.bucket, Key: key, Body: body, ContentType: contentType },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    // A failing source stream (a limit, a mismatch) must stop the upload rather than end it short.
    const failed = new Promise<never>((_, reject) => body.once('error', reject));
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => {});
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const output = await this.client.send(
      new GetObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    return output.Body as Readable;
  }

  async remove(keys: readonly string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.settings.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }

  presign(key: string, seconds: number, download: { contentType: string; fileName: string }): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        ResponseContentType: download.contentType,
        ResponseContentDisposition: contentDisposition(download.fileName),
      }),
      { expiresIn: seconds },
    );
  }
}

/** `attachment` with the name in RFC 6266 form, safe for any characters in it. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
