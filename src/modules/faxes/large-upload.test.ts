import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sampleFile } from '../../test/files.ts';
import { createTestTenant, startApp, testFormation } from '../../test/harness.ts';

/**
 * A fax's 100 MB of files over a real socket: the bytes stream to the blob store and never sit
 * whole in memory. The body is made as it is sent, so the only copies are the server's own.
 */

const MB = 1024 * 1024;
const app = await startApp();
await app.server.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.server.address() as AddressInfo).port;

/** POSTs `files` PDFs of `size` bytes each as one multipart body generated while it is sent. */
function streamUpload(path: string, token: string, files: number, size: number): Promise<{ status: number; body: string }> {
  const boundary = `----cairn${randomUUID()}`;
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  async function* body() {
    for (let index = 0; index < files; index++) {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="page-${index}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      );
      const head = sampleFile('pdf', 64);
      yield head;
      for (let sent = head.length; sent < size; sent += chunk.length)
        yield chunk.subarray(0, Math.min(chunk.length, size - sent));
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      },
      (response) => {
        let text = '';
        response.on('data', (part) => {
          text += part;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    Readable.from(body()).pipe(request);
  });
}

// Garbage is not holding: each sample collects it first, so what is measured is what is live.
v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** The most memory (heap and buffers) the process kept live while `work` ran, above what it held before. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const used = () => {
    // Twice: V8 frees a dead buffer's bytes on a background thread after a collection, and the
    // next collection first waits for that; counted after one, the buffers the upload had just
    // let go (tens of MB on a loaded machine) read as live.
    collect();
    collect();
    const memory = process.memoryUsage();
    return memory.heapUsed + memory.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, used());
  }, 200);
  try {
    const result = await work();
    return { result, growth: Math.max(peak, used()) - before };
  } finally {
    clearInterval(sampler);
  }
}

describe('a fax of 100 MB', () => {
  test('ten files of 10 MB stream in with flat memory; a byte more is refused', async () => {
    const t = await createTestTenant(app, testFormation());
    const draft = (await t.api.post(`${t.base}/faxes`, { receiver: { faxNumber: '+14155550160' } })).body;
    const path = `${t.base}/faxes/${draft.id}/files`;
    const token = t.api.token as string;

    // A first small upload warms what stays (the embedded database's memory grows once, and keeps it).
    const warm = (await t.api.post(`${t.base}/faxes`, {})).body;
    assert.equal((await streamUpload(`${t.base}/faxes/${warm.id}/files`, token, 1, MB)).status, 200);

    const { result, growth } = await peakGrowth(() => streamUpload(path, token, 10, 10 * MB));
    assert.equal(result.status, 200, result.body);
    const files = JSON.parse(result.body).files as { size: number }[];
    assert.equal(files.length, 10);
    assert.equal(
      files.reduce((total, file) => total + file.size, 0),
      100 * MB,
    );
    // Holding the upload would take 100 MB at least. Streaming holds what is in flight between the
    // socket, the parser and the disk (1 MB measured, counted after the buffers let go are freed).
    assert.ok(growth < 25 * MB, `memory grew ${Math.round(growth / MB)} MB during a 100 MB upload`);

    const another = (await t.api.post(`${t.base}/faxes`, {})).body;
    const over = await streamUpload(`${t.base}/faxes/${another.id}/files`, token, 1, 100 * MB + 1);
    assert.equal(over.status, 400, over.body);
    assert.equal(JSON.parse(over.body)[0].errorCode, 'FILE_TOO_LARGE');
    assert.equal((await t.api.get(`${t.base}/faxes/${another.id}`)).body.files.length, 0);
  });
});
