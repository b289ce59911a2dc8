import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import { after, describe, test } from 'node:test';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { multipart, sampleFile } from '../test/files.ts';
import { assertCode, createPatient, createTestTenant, startApp } from '../test/harness.ts';
import { contentDisposition } from './disposition.ts';
import { createBlobStore } from './files.ts';
import { S3BlobStore, type S3Settings } from './s3-store.ts';
import type { FileStoreSettings } from './settings.ts';

/**
 * The S3 driver against a real S3-compatible server (s3rver) started here on a loopback port,
 * with its data in a temporary folder: the driver itself, then the document files over HTTP with
 * `files.driver = 's3'`. No network is needed.
 */

interface S3rver {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverOptions = {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  resetOnClose: boolean;
  configureBuckets: { name: string }[];
};
// s3rver ships no types; it is a CommonJS class.
const S3rverServer = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rver;

const MB = 1024 * 1024;
const bucket = 'cairn-files';
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-s3rver-'));
const s3rver = new S3rverServer({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  resetOnClose: true,
  configureBuckets: [{ name: bucket }],
});
const { port } = await s3rver.run();
const endpoint = `http://127.0.0.1:${port}`;
const settings: S3Settings = {
  driver: 's3',
  bucket,
  region: 'us-east-1',
  endpoint,
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
  forcePathStyle: true,
};
/** A client of its own, to look into the bucket behind the driver's back. */
const s3 = new S3Client({
  region: settings.region,
  endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
});
// A hook of the whole file: it runs after the HTTP suite's own (startApp closes its app there).
after(async () => {
  s3.destroy();
  await s3rver.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

const store = new S3BlobStore(settings);

/** The bucket's keys under a prefix. */
async function keys(prefix = ''): Promise<string[]> {
  const found: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
    );
    found.push(...(page.Contents ?? []).map((object) => object.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return found.sort();
}

/** A byte of the test pattern at an offset: not periodic at any part or chunk size. */
function byteAt(offset: number): number {
  return (offset * 31 + Math.floor(offset / 8191)) & 0xff;
}

function pattern(start: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) bytes[index] = byteAt(start + index);
  return bytes;
}

const CHUNK = 64 * 1024;

/** `size` bytes of the pattern streamed in 64 KB chunks; with `failAfter`, an error after that many bytes. */
function patternStream(size: number, failAfter?: { bytes: number; error: Error }): Readable {
  return Readable.from(
    (async function* () {
      for (let offset = 0; offset < size; offset += CHUNK) {
        if (failAfter && offset >= failAfter.bytes) throw failAfter.error;
        yield pattern(offset, Math.min(CHUNK, size - offset));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })(),
  );
}

function patternDigest(size: number): string {
  const hash = createHash('sha256');
  for (let offset = 0; offset < size; offset += CHUNK) hash.update(pattern(offset, Math.min(CHUNK, size - offset)));
  return hash.digest('hex');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3BlobStore on a local S3 server', () => {
  test('put streams a multi-part object in; get answers it whole and by byte range', async () => {
    // More than the 5 MB part size, so the SDK's multipart upload runs (two parts).
    const size = 6 * MB + 12345;
    const key = 'unit/stream/big';
    await store.put(key, patternStream(size), 'application/pdf');
    assert.deepEqual(await keys('unit/stream/'), [key]);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    assert.equal(head.ContentLength, size);
    assert.equal(head.ContentType, 'application/pdf');

    const whole = await readAll(await store.get(key));
    assert.equal(whole.length, size);
    assert.equal(createHash('sha256').update(whole).digest('hex'), patternDigest(size));

    // Across the boundary between the two parts, and the last bytes.
    const start = 5 * MB - 5;
    assert.deepEqual(await readAll(await store.get(key, { start, end: start + 9 })), pattern(start, 10));
    assert.deepEqual(await readAll(await store.get(key, { start: size - 3, end: size - 1 })), pattern(size - 3, 3));
    // (Not bytes=0-0: s3rver takes an end of 0 for no end, and answers the whole object.)
    assert.deepEqual(await readAll(await store.get(key, { start: 7, end: 7 })), pattern(7, 1));

    // A stream with a `size` of its own (upload.ts's checking stream counts what passed in it)
    // is not taken for the byte count by the SDK: the parts add up to more than its 0 at start.
    class Counting extends Transform {
      size = 0;
      override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error: null, chunk: Buffer) => void) {
        this.size += chunk.length;
        done(null, chunk);
      }
    }
    const counted = pipeline(patternStream(size), new Counting(), () => {});
    await store.put('unit/stream/counted', counted, 'application/pdf');
    assert.equal(counted.size, size);
    const copy = await readAll(await store.get('unit/stream/counted'));
    assert.equal(createHash('sha256').update(copy).digest('hex'), patternDigest(size));

    // A small stream goes up in one PutObject.
    await store.put('unit/stream/small', patternStream(1000), 'image/png');
    assert.deepEqual(await readAll(await store.get('unit/stream/small')), pattern(0, 1000));
  });

  test('remove deletes the keys; a key that is missing is not an error; more than 1000 keys go in batches', async () => {
    await store.put('unit/remove/a', patternStream(10), 'image/png');
    await store.put('unit/remove/b', patternStream(10), 'image/png');
    await store.put('unit/remove/c', patternStream(10), 'image/png');
    await store.remove(['unit/remove/a', 'unit/remove/missing']);
    assert.deepEqual(await keys('unit/remove/'), ['unit/remove/b', 'unit/remove/c']);
    await store.remove(['unit/remove/a']);
    await store.remove([]);
    // 1001 keys: b in the first batch of 1000, c alone in the second.
    const many = ['unit/remove/b', ...Array.from({ length: 999 }, (_, index) => `unit/remove/none-${index}`), 'unit/remove/c'];
    await store.remove(many);
    assert.deepEqual(await keys('unit/remove/'), []);
  });

  test('a key S3 reports it could not delete makes remove reject, so its removal job is retried', async () => {
    // DeleteObjects answers 200 and lists the keys it did not delete; this stand-in answers so.
    const refusing = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(
          '<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
            '<Error><Key>unit/denied</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>',
        );
      });
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const refused = new S3BlobStore({ ...settings, endpoint: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}` });
      await assert.rejects(refused.remove(['unit/denied', 'unit/other']), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'AccessDenied');
        assert.match(error.message, /unit\/denied/);
        return true;
      });
    } finally {
      refusing.closeAllConnections();
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  test('a download names the file in RFC 6266 form, whatever its characters', () => {
    const fileName = "Résumé (O'Brien) *final*.pdf";
    const disposition = contentDisposition(fileName, 'inline');
    assert.match(disposition, /^inline; filename="R_sum_ \(O'Brien\) \*final\*\.pdf"; /);
    // RFC 8187: the encoded name has no ' ( ) * of its own, and decodes back to the name.
    const encoded = disposition.split("filename*=UTF-8''")[1]!;
    assert.doesNotMatch(encoded, /['()*]/);
    assert.equal(decodeURIComponent(encoded), fileName);
  });

  test('a put whose source fails mid-way rejects with that error and leaves no object', async () => {
    // Before the first part is full (the SDK would have used one PutObject), and after a part has
    // gone up in a multipart upload.
    for (const [name, size, failAt] of [
      ['small', 3 * MB, 2 * MB],
      ['multipart', 12 * MB, 7 * MB],
    ] as const) {
      const boom = new Error(`source failed (${name})`);
      await assert.rejects(
        store.put(`unit/fail/${name}`, patternStream(size, { bytes: failAt, error: boom }), 'image/png'),
        (error) => {
          assert.equal(error, boom);
          return true;
        },
      );
    }

    // As upload.ts feeds it: the request's part piped through a check that fails after 6 MB.
    const refused = new Error('the check refused it');
    let seen = 0;
    const check = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        done(seen > 6 * MB ? refused : null, chunk);
      },
    });
    const source = pipeline(patternStream(10 * MB), check, () => {});
    await assert.rejects(store.put('unit/fail/piped', source, 'application/pdf'), (error) => {
      assert.equal(error, refused);
      return true;
    });

    // A source destroyed without an error (the client went away) after a part has gone up.
    const cut = new Readable({ read() {} });
    const feeding = (async () => {
      for (let offset = 0; offset < 6 * MB; offset += CHUNK) {
        cut.push(pattern(offset, CHUNK));
        await new Promise((resolve) => setImmediate(resolve));
      }
      cut.destroy();
    })();
    await assert.rejects(store.put('unit/fail/cut', cut, 'application/pdf'));
    await feeding;

    assert.deepEqual(await keys('unit/fail/'), []);
  });
});

describe('document files on S3 over HTTP', async () => {
  const files: FileStoreSettings = settings;
  const app = await startApp({}, { blobs: createBlobStore(files) });

  async function setup() {
    const t = await createTestTenant(app);
    const patientId = (await createPatient(t)).id;
    const base = `${t.base}/patients/${patientId}/document-summary`;
    const summary = await t.api.post(base, { type: 'doc-type-others' });
    assert.equal(summary.status, 201, summary.text);
    return { t, patientId, base, summaryId: summary.body.id as string };
  }

  async function upload(t: Awaited<ReturnType<typeof setup>>['t'], url: string, parts: Parameters<typeof multipart>[0]) {
    const { body, headers } = multipart(parts);
    return t.api.request('POST', url, body, headers);
  }

  function download(url: string, headers: Record<string, string> = {}) {
    return app.server.inject({ method: 'GET', url, headers });
  }

  test('the app stores on S3: upload, the object under its storageKey, download whole and by range, links through Cairn', async () => {
    assert.equal(app.services.files.blobs.driver, 's3');
    const { t, patientId, base, summaryId } = await setup();
    const png = sampleFile('png', 6 * MB);
    const pdf = sampleFile('pdf', 3000);
    const response = await upload(t, `${base}/${summaryId}/files`, [
      { name: 'scan.png', content: png },
      { name: 'letter.pdf', content: pdf },
    ]);
    assert.equal(response.status, 201, response.text);
    const [first, second] = response.body as { id: string; size: number; storageKey: string; contentType: string }[];
    assert.ok(first && second);
    assert.equal(first.storageKey, `${t.tenant.name}/${t.instance.name}/patients/${patientId}/documents/${first.id}`);
    assert.equal(first.size, png.length);
    assert.deepEqual(await keys(`${t.tenant.name}/`), [first.storageKey, second.storageKey].sort());
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: first.storageKey }));
    assert.equal(head.ContentLength, png.length);
    assert.equal(head.ContentType, 'image/png');

    const auth = { authorization: `Bearer ${t.api.token}` };
    const url = `${base}/${summaryId}/files/${first.id}`;
    const whole = await download(url, auth);
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['content-type'], 'image/png');
    assert.equal(Number(whole.headers['content-length']), png.length);
    assert.ok(whole.rawPayload.equals(png));
    const range = await download(url, { ...auth, range: 'bytes=0-9' });
    assert.equal(range.statusCode, 206);
    assert.equal(range.headers['content-range'], `bytes 0-9/${png.length}`);
    assert.ok(range.rawPayload.equals(png.subarray(0, 10)));
    const tail = await download(`${base}/${summaryId}/files/${second.id}`, { ...auth, range: 'bytes=-5' });
    assert.equal(tail.statusCode, 206);
    assert.ok(tail.rawPayload.equals(pdf.subarray(pdf.length - 5)));

    const signed = await t.api.get(`${base}/${summaryId}?signedUrls=true`);
    assert.equal(signed.status, 200, signed.text);
    const linked = signed.body.jsonBody.files as { id: string; url: string }[];
    for (const [entry, bytes, type] of [
      [first, png, 'image/png'],
      [second, pdf, 'application/pdf'],
    ] as const) {
      const link = new URL(linked.find((file) => file.id === entry.id)!.url);
      // Cairn's own link, its bytes streamed from S3: so each use of it is in the access log.
      assert.notEqual(link.origin, endpoint, 'a Cairn link, not an S3 presigned URL');
      const fetched = await download(`${link.pathname}${link.search}`);
      assert.equal(fetched.statusCode, 200);
      assert.equal(fetched.headers['content-type'], type);
      assert.match(String(fetched.headers['content-disposition']), /^inline; filename="/);
      assert.ok(fetched.rawPayload.equals(bytes));
    }

    // GET /files/{fileId} links the same way.
    const entry = await t.api.get(`${t.base}/files/${second.id}`);
    assert.equal(entry.status, 200, entry.text);
    const link = new URL(entry.body.url);
    assert.ok((await download(`${link.pathname}${link.search}`)).rawPayload.equals(pdf));
  });

  test('a refused upload leaves no object: content mismatch, and a file over 25 MB cut off mid-way', async () => {
    const { t, base, summaryId } = await setup();
    const url = `${base}/${summaryId}/files`;
    assertCode(await upload(t, url, [{ name: 'photo.png', content: sampleFile('pdf') }]), 400, 'FILE_CONTENT_MISMATCH');
    // A good file before a bad one: the good one is removed from the bucket too.
    assertCode(
      await upload(t, url, [
        { name: 'ok.pdf', content: sampleFile('pdf', 2000) },
        { name: 'bad.jpg', content: sampleFile('png') },
      ]),
      400,
      'FILE_CONTENT_MISMATCH',
    );
    // Refused after several 5 MB parts have gone up: the multipart upload never completes.
    assertCode(await upload(t, url, [{ name: 'big.pdf', content: sampleFile('pdf', 25 * MB + 1) }]), 400, 'FILE_TOO_LARGE');
    assert.deepEqual(await keys(`${t.tenant.name}/`), []);
    assert.equal((await t.api.get(`${base}/${summaryId}`)).body.jsonBody.files, null);
  });

  test('deleting the summary, then its removal jobs, removes its objects from the bucket', async () => {
    const { t, base, summaryId } = await setup();
    const other = await t.api.post(base, { type: 'doc-type-others' });
    const uploaded = await upload(t, `${base}/${summaryId}/files`, [
      { name: 'a.png', content: sampleFile('png') },
      { name: 'b.pdf', content: sampleFile('pdf') },
    ]);
    assert.equal(uploaded.status, 201, uploaded.text);
    const kept = await upload(t, `${base}/${other.body.id}/files`, [{ name: 'c.jpg', content: sampleFile('jpeg') }]);
    assert.equal(kept.status, 201, kept.text);
    assert.equal((await keys(`${t.tenant.name}/`)).length, 3);

    assert.equal((await t.api.delete(`${base}/${summaryId}`)).status, 200);
    await app.jobs.drain();
    assert.deepEqual(await keys(`${t.tenant.name}/`), [kept.body[0].storageKey]);
  });
});
