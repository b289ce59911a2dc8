/**
 * File throughput: a 20 MB upload and download through Cairn's document file routes, beside a
 * bare Node HTTP server's upload (flushed to disk the same way) and download of the same file in
 * the same run, a plain `cp` of it on the same disk (and `cp` then fsync of the copy: the disk's
 * durable write speed), and the growth of the server's resident memory during the upload (the
 * bytes must stream, not sit in memory). Cairn runs as one process from the build, on PGlite and
 * the filesystem store in a temporary folder; 5 rounds, medians (a shared disk is noisy).
 *
 *   npm run bench:files        (npm run bench runs it at its end)
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { median, root, standalone } from './common.ts';
import { threadTicks } from './cpu.ts';

const SIZE = 20 * 1024 * 1024;
/** The kernel's clock ticks a second, in which /proc counts CPU time (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
const ROUNDS = 5;
const client = { key: 'bench-files', secret: 'bench-files-secret-0123456789' };

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU ticks of `pid`'s threads while `work` runs. */
async function ticksOver(pid: number, work: () => Promise<number>): Promise<{ seconds: number; main: number; others: number }> {
  const before = threadTicks(pid);
  const seconds = await work();
  const after = threadTicks(pid);
  return { seconds, main: after.main - before.main, others: after.others - before.others };
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// biome-ignore lint/suspicious/noExplicitAny: the bench reads a few known keys of Cairn's answers
type Answer = any;

async function json(method: string, url: string, token: string | undefined, body?: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Streams the file from disk as one multipart part, the way a browser or SDK would. */
function uploadFile(url: string, token: string, file: string): Promise<void> {
  const boundary = `----bench${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + SIZE + tail.length,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          response.statusCode === 201 ? resolve() : reject(new Error(`upload ${response.statusCode} ${Buffer.concat(chunks)}`)),
        );
      },
    );
    request.on('error', reject);
    request.write(head);
    const source = fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
    source.on('error', reject);
    source.on('end', () => request.end(tail));
    source.pipe(request, { end: false });
  });
}

function downloadFile(url: string, token: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`download ${response.statusCode}`));
        pipeline(response, fs.createWriteStream(target)).then(resolve, reject);
      })
      .on('error', reject);
  });
}

/**
 * The bare baseline: plain Node HTTP in its own process, with no framework, parsing or checks:
 * what this machine's HTTP over loopback can carry (cp only copies between page-cache pages,
 * which no network path can). An upload's body goes to a new file in a folder, flushed as
 * Cairn's is before it answers: the file's bytes (fsync) and its folder's entry, so the two pay
 * the same disk. A download streams the file back.
 */
const bareServer = `
const http = require('node:http'); const fs = require('node:fs'); const path = require('node:path');
const [file, folder] = process.argv.slice(1);
let uploads = 0;
async function syncFolder() {
  const handle = await fs.promises.open(folder, 'r');
  await handle.sync();
  await handle.close();
}
const server = http.createServer((request, response) => {
  if (request.method === 'POST') {
    const out = fs.createWriteStream(path.join(folder, 'upload-' + uploads++), { flags: 'wx', flush: true });
    // 'close' comes after the flush; 'finish' before it.
    request.pipe(out).on('close', () => syncFolder().then(() => { response.statusCode = 201; response.end('{}'); }));
  } else {
    response.setHeader('content-length', fs.statSync(file).size);
    fs.createReadStream(file).pipe(response);
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startBare(file: string, folder: string) {
  fs.mkdirSync(folder);
  const child = spawn(process.execPath, ['-e', bareServer, file, folder], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) =>
    child.stdout!.once('data', (data: Buffer) => resolve(Number(String(data).trim()))),
  );
  return { child, url: `http://127.0.0.1:${port}/` };
}

async function timed(work: () => Promise<void> | void): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export async function benchFiles(): Promise<string> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-files-'));
  const dataDir = path.join(work, 'data');
  const source = path.join(work, 'scan.pdf');
  // A PDF header, then incompressible bytes: what a scanned document is like.
  const bytes = randomBytes(SIZE);
  bytes.write('%PDF-1.4\n');
  fs.writeFileSync(source, bytes);
  const port = await freePort();
  const server = spawn(process.execPath, ['dist/cli.js', 'serve'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(port),
      CAIRN_DATA_DIR: dataDir,
      CAIRN_DEMO: 'true',
      CAIRN_DEMO_CLIENT: client.key,
      CAIRN_DEMO_SECRET: client.secret,
      LOG_LEVEL: 'warn',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let attempt = 0; ; attempt++) {
      const up = await fetch(`${base}/health/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) break;
      if (attempt > 240) throw new Error('the server did not come up');
      await sleep(250);
    }
    const { token } = await json('POST', `${base}/demo/admin/api_clients/${client.key}`, undefined, {
      secret: client.secret,
    });
    const instance = `${base}/demo/sandbox`;
    const patient = await json('POST', `${instance}/patients`, token, { firstName: 'Bench', lastName: 'Files' });
    const summaries = `${instance}/patients/${patient.id}/document-summary`;
    const bare = await startBare(source, path.join(work, 'bare-uploads'));
    const bareUploads: number[] = [];
    const bareDownloads: number[] = [];
    const copies: number[] = [];
    const durableCopies: number[] = [];
    const uploads: number[] = [];
    const downloads: number[] = [];
    const growth: number[] = [];
    // CPU ticks of each server's threads over each upload: its main thread's and the others'.
    const bareCpu: { main: number; others: number }[] = [];
    const uploadCpu: { main: number; others: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const copy = path.join(work, `copy-${round}.pdf`);
      copies.push(
        await timed(() => {
          execFileSync('cp', [source, copy]);
        }),
      );
      fs.rmSync(copy);
      durableCopies.push(
        await timed(() => {
          execFileSync('cp', [source, copy]);
          const handle = fs.openSync(copy, 'r+');
          fs.fsyncSync(handle);
          fs.closeSync(handle);
        }),
      );
      fs.rmSync(copy);
      const bareUpload = await ticksOver(bare.child.pid!, () => timed(() => uploadFile(bare.url, '', source)));
      bareUploads.push(bareUpload.seconds);
      bareCpu.push(bareUpload);
      const bareTarget = path.join(work, `bare-${round}.pdf`);
      bareDownloads.push(await timed(() => downloadFile(bare.url, '', bareTarget)));
      fs.rmSync(bareTarget);
      const summary = await json('POST', summaries, token, { type: 'doc-type-others' });
      const before = rssMb(server.pid!);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(server.pid!));
      }, 20);
      const upload = await ticksOver(server.pid!, () =>
        timed(() => uploadFile(`${summaries}/${summary.id}/files`, token, source)),
      );
      uploads.push(upload.seconds);
      uploadCpu.push(upload);
      clearInterval(sampler);
      growth.push(Math.max(peak, rssMb(server.pid!)) - before);
      const [file] = (await json('GET', `${summaries}/${summary.id}`, token)).jsonBody.files;
      const target = path.join(work, `download-${round}.pdf`);
      downloads.push(await timed(() => downloadFile(`${summaries}/${summary.id}/files/${file.id}`, token, target)));
      if (fs.statSync(target).size !== SIZE) throw new Error('the download is not the file');
      fs.rmSync(target);
    }
    bare.child.kill('SIGTERM');
    const mbps = (seconds: number) => SIZE / 2 ** 20 / seconds;
    const bareUp = mbps(median(bareUploads));
    const bareDown = mbps(median(bareDownloads));
    const disk = mbps(median(copies));
    const durable = mbps(median(durableCopies));
    const up = mbps(median(uploads));
    const down = mbps(median(downloads));
    const rss = median(growth);
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    // CPU ms per upload, the mean of the rounds (the kernel counts in ticks of 10 ms, too coarse for one round).
    const ms = (runs: { main: number; others: number }[], part: 'main' | 'others') =>
      (runs.reduce((sum, run) => sum + run[part], 0) / runs.length) * (1000 / TICKS_PER_SECOND);
    const cpu = (runs: { main: number; others: number }[]) =>
      `${(ms(runs, 'main') + ms(runs, 'others')).toFixed(0)} ms (main thread ${ms(runs, 'main').toFixed(0)}, other threads ${ms(runs, 'others').toFixed(0)})`;
    // A miss says where the upload's CPU went beside the bare server's: its JavaScript, or the threads beside it.
    const uploadWhy = `MISSED. Why: CPU per upload, Cairn ${cpu(uploadCpu)} against the bare server's ${cpu(bareCpu)}: the main thread parses the multipart body, checks and hashes it; the other threads are V8's collector (a full collection every upload or two: 20 MB of network buffers a file, beside a heap that also holds PGlite's database) and libuv's disk writes (the same bytes as the bare server's)`;
    return [
      '',
      `**Files** (20 MB, ${ROUNDS} rounds, medians; one Cairn process on PGlite and the filesystem store, the same disk as cp)`,
      '',
      '| Measure | Value | Target | |',
      '|---|---|---|---|',
      `| cp of the file (page cache to page cache) | ${disk.toFixed(0)} MB/s | | |`,
      `| cp, then fsync of the copy (the disk's durable write speed) | ${durable.toFixed(0)} MB/s | | |`,
      `| bare Node HTTP upload (flushed to disk, as Cairn's) / download (loopback, same disk) | ${bareUp.toFixed(0)} / ${bareDown.toFixed(0)} MB/s | | |`,
      `| upload (multipart POST .../files, checked and hashed as it streams, flushed to disk) | ${up.toFixed(0)} MB/s = ${(up / bareUp).toFixed(2)} × bare HTTP, ${(up / durable).toFixed(2)} × durable cp | ≥ 0.8 × bare HTTP | ${up / bareUp >= 0.8 ? 'met' : uploadWhy} |`,
      `| CPU of the server's process per upload (means of the rounds) | Cairn ${cpu(uploadCpu)}; bare Node ${cpu(bareCpu)} | | |`,
      `| download (GET .../files/{fileId}) | ${down.toFixed(0)} MB/s = ${(down / bareDown).toFixed(2)} × bare HTTP, ${(down / disk).toFixed(2)} × cp | ≥ 0.8 × bare HTTP | ${verdict(down / bareDown >= 0.8)} |`,
      `| server RSS growth during the upload | ${rss.toFixed(1)} MB | < 30 MB | ${verdict(rss < 30)} |`,
      '',
    ].join('\n');
  } finally {
    server.kill('SIGTERM');
    await sleep(500);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

standalone(import.meta.url, 'files', benchFiles);
