import { PassThrough, pipeline, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore, ByteRange } from './blob-store.ts';
import type { FileStoreSettings } from './settings.ts';

export type S3Settings = Extract<FileStoreSettings, { driver: 's3' }>;

/** S3 accepts at most 1000 keys per DeleteObjects. */
const DELETE_BATCH = 1000;

/** The AWS SDK's parts this store uses, loaded together on first use. */
async function loadSdk() {
  const [{ DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, S3Client }, { Upload }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
  ]);
  return { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, S3Client, Upload };
}

/**
 * Blobs as objects in one bucket. Uploads go through the SDK's multipart `Upload`, which holds at
 * most `queueSize` parts of `partSize` in memory whatever the file's size; an aborted upload is
 * aborted on S3 too, so nothing is left. The AWS SDK (about 6 MB of heap) is loaded by the first
 * call, so a server on the local store, or one that has not touched a file yet, does not hold it.
 */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private sdk: Promise<{ sdk: Awaited<ReturnType<typeof loadSdk>>; client: S3Client }> | undefined;

  constructor(private readonly settings: S3Settings) {}

  /** The SDK and this store's client, made once; a failed load is tried again by the next call. */
  private connect() {
    this.sdk ??= loadSdk().then(
      (sdk) => ({
        sdk,
        client: new sdk.S3Client({
          region: this.settings.region,
          forcePathStyle: this.settings.forcePathStyle,
          ...(this.settings.endpoint ? { endpoint: this.settings.endpoint } : {}),
          ...(this.settings.accessKeyId
            ? { credentials: { accessKeyId: this.settings.accessKeyId, secretAccessKey: this.settings.secretAccessKey } }
            : {}),
        }),
      }),
      (error: unknown) => {
        this.sdk = undefined;
        throw error;
      },
    );
    return this.sdk;
  }

  async put(key: string, body: Readable, contentType: string): Promise<void> {
    // `Upload` takes a `size` or `length` property of the body for its byte count, and refuses to
    // complete when the parts sent do not add up to it: upload.ts's checking stream has a `size`
    // (0 when the upload starts), so every file over one part failed. The SDK gets a plain stream
    // of the same bytes instead, of unknown length; `pipeline` carries the body's error into it.
    const source = pipeline(body, new PassThrough(), () => {});
    // A failing source stream (a limit, a mismatch) must stop the upload rather than end it short.
    const failed = new Promise<never>((_, reject) => body.once('error', reject));
    const { sdk, client } = await Promise.race([this.connect(), failed]).catch((error: unknown) => {
      source.destroy();
      throw error;
    });
    const upload = new sdk.Upload({
      client,
      params: { Bucket: this.settings.bucket, Key: key, Body: source, ContentType: contentType },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => {});
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const { sdk, client } = await this.connect();
    const output = await client.send(
      new sdk.GetObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    return output.Body as Readable;
  }

  async size(key: string): Promise<number | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const output = await client.send(new sdk.HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return output.ContentLength;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  async remove(keys: readonly string[]): Promise<void> {
    const { sdk, client } = await this.connect();
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      const output = await client.send(
        new sdk.DeleteObjectsCommand({
          Bucket: this.settings.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      // DeleteObjects answers 200 even when keys were not removed (AccessDenied, SlowDown, …): it
      // lists them in Errors. A missing key is not among them (S3 counts it as deleted).
      const failed = output.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0]!;
        throw Object.assign(
          new Error(
            `S3 did not remove ${failed.length} of ${batch.length} objects: ${first.Key}: ${first.Code} ${first.Message ?? ''}`.trim(),
          ),
          { code: first.Code ?? 'S3_DELETE_FAILED', keys: failed.map((error) => error.Key) },
        );
      }
    }
  }
}
