import fs, { type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

/** Bytes gathered before a write to the file. */
const BLOCK_BYTES = 1024 * 1024;
/** Blocks a file has at most: one filling while the others go to disk. */
const BLOCKS = 4;

/**
 * A new file (`wx`: never one that exists) written from a stream, and flushed to disk before the
 * stream finishes. The chunks are copied into a few reused blocks of a megabyte, and the blocks
 * written in order. Why not fs.createWriteStream: it writes each chunk the network gave as it
 * comes (about 320 writes of 64 KB for 20 MB, each a round trip to libuv's threads, each chunk
 * held until the disk has taken it); in blocks a 20 MB upload is 20 writes, and each chunk can
 * go as soon as it is copied. `npm run bench:files`, alternating, four runs each (2026-12-03):
 * 0.49-0.63 of a bare Node upload against 0.36-0.48 (README, Performance: Files).
 */
export class FileWriter extends Writable {
  private handle: FileHandle | undefined;
  private block: Buffer | undefined;
  private filled = 0;
  private blocks = 0;
  private readonly free: Buffer[] = [];
  /** The blocks on their way to the file: each written after the one before. */
  private written: Promise<void> = Promise.resolve();

  constructor(private readonly path: string) {
    super({ highWaterMark: BLOCK_BYTES });
  }

  override _construct(done: (error?: Error | null) => void): void {
    fs.open(this.path, 'wx').then((handle) => {
      this.handle = handle;
      done();
    }, done);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.copy(chunk).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.finish().then(() => done(), done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const handle = this.handle;
    this.handle = undefined;
    this.block = undefined;
    this.free.length = 0;
    // A write in flight finishes first: FileHandle.close waits for the handle's operations.
    (handle ? handle.close() : Promise.resolve()).then(
      () => done(error),
      () => done(error),
    );
  }

  private async copy(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length; ) {
      this.block ??= await this.freeBlock();
      const copied = chunk.copy(this.block, this.filled, at);
      at += copied;
      this.filled += copied;
      if (this.filled === BLOCK_BYTES) this.send();
    }
  }

  private async freeBlock(): Promise<Buffer> {
    const block = this.free.pop();
    if (block) return block;
    if (this.blocks < BLOCKS) {
      this.blocks += 1;
      return Buffer.allocUnsafeSlow(BLOCK_BYTES);
    }
    await this.written;
    return this.free.pop()!;
  }

  /** The block filled so far goes to the file after those before it; the next chunk fills another. */
  private send(): void {
    const block = this.block!;
    const length = this.filled;
    this.block = undefined;
    this.filled = 0;
    const handle = this.handle!;
    const written = this.written.then(async () => {
      for (let at = 0; at < length; ) at += (await handle.write(block, at, length - at)).bytesWritten;
      this.free.push(block);
    });
    // Heard by the next wait for a block, or by finish(); a failure unheard meanwhile would end the process.
    written.catch(() => {});
    this.written = written;
  }

  private async finish(): Promise<void> {
    if (this.filled > 0) this.send();
    await this.written;
    // A finished stream may be kept a while (an upload's parts are until its request ends): not its blocks.
    this.free.length = 0;
    const handle = this.handle!;
    await handle.sync();
    this.handle = undefined;
    await handle.close();
  }
}
