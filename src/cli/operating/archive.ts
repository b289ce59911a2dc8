import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';

/**
 * A backup is one tar file (gzipped when its name ends in .gz or .tgz), written and read as a
 * stream: tables and blobs pass through, none is held whole in memory. Written under a temporary
 * name and renamed once complete, so a file under the name asked for is always a whole backup.
 */
const gzipped = (file: string) => /\.(gz|tgz)$/.test(file);

export class ArchiveWriter {
  private readonly pack = tar.pack();
  private readonly partial: string;
  private readonly written: Promise<void>;

  constructor(private readonly file: string) {
    this.partial = `${file}.partial`;
    const out = fs.createWriteStream(this.partial, { flags: 'w', mode: 0o600 });
    this.written = gzipped(file)
      ? pipeline(this.pack, zlib.createGzip({ level: 1, chunkSize: 1 << 18 }), out)
      : pipeline(this.pack, out);
    // Seen by finish() or abort(); unhandled meanwhile it would end the process.
    this.written.catch(() => {});
  }

  async addJson(name: string, value: unknown): Promise<void> {
    await this.addBytes(name, Buffer.from(`${JSON.stringify(value, null, 1)}\n`));
  }

  /** An entry of bytes in memory; settled once the archive has taken them (so a writer slower than its reader holds it back). */
  async addBytes(name: string, bytes: Buffer): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      this.pack.entry({ name, size: bytes.length }, bytes, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** An entry of `size` bytes from the stream (the stream must give exactly that many). */
  async addStream(name: string, size: number, stream: Readable): Promise<void> {
    await pipeline(stream, this.pack.entry({ name, size }));
  }

  async finish(): Promise<void> {
    this.pack.finalize();
    await this.written;
    await fs.promises.rename(this.partial, this.file);
  }

  async abort(): Promise<void> {
    this.pack.destroy();
    await this.written.catch(() => {});
    fs.rmSync(this.partial, { force: true });
  }
}

export interface ArchiveEntry {
  name: string;
  size: number;
  /** The entry's bytes: read it to its end before the next entry comes. */
  stream: Readable;
}

/** The archive's entries in order. */
export async function* archiveEntries(file: string): AsyncGenerator<ArchiveEntry> {
  const extract = tar.extract();
  const input = fs.createReadStream(file);
  (gzipped(file) ? input.pipe(zlib.createGunzip()) : input).pipe(extract);
  input.on('error', (error) => extract.destroy(error));
  try {
    for await (const entry of extract as unknown as AsyncIterable<Readable & { header: tar.Header }>) {
      yield { name: entry.header.name, size: entry.header.size ?? 0, stream: entry };
      entry.resume(); // whatever the reader left of it
    }
  } finally {
    // A reader that stops early (restore reads the header first) leaves no file open.
    input.destroy();
  }
}

/** An entry's bytes. */
export async function readBytes(entry: ArchiveEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An entry's text. */
export async function readText(entry: ArchiveEntry): Promise<string> {
  return (await readBytes(entry)).toString('utf8');
}

/** An entry's JSON. */
export async function readJson<T>(entry: ArchiveEntry): Promise<T> {
  return JSON.parse(await readText(entry)) as T;
}
