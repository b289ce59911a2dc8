import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Test support for uploads: small files of each accepted type, and multipart bodies. */

const pngHead = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(17)]);
const jpegHead = Buffer.concat([Buffer.from('ffd8ffe000104a46494600', 'hex'), Buffer.alloc(20)]);
const pdfHead = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n');

/** Bytes a content check takes for the type, padded to `size` (at least the type's header). */
export function sampleFile(kind: 'png' | 'jpeg' | 'pdf', size = 64): Buffer {
  const head = kind === 'png' ? pngHead : kind === 'jpeg' ? jpegHead : pdfHead;
  const body = Buffer.alloc(Math.max(size, head.length), 0x20);
  head.copy(body);
  return body;
}

export interface Part {
  name: string;
  content: Buffer;
  field?: string;
  type?: string;
}

/** A text field of a form (a chat message's `message`). */
export interface FieldPart {
  field: string;
  value: string;
}

/** A multipart/form-data body: files in parts named `files` unless said otherwise, and text fields. */
export function multipart(parts: (Part | FieldPart)[]): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----cairn${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.field}"\r\n\r\n${part.value}\r\n`));
      continue;
    }
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? 'files'}"; filename="${part.name}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      part.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Every file under a folder (blobs and leftovers alike), as paths relative to it. */
export function filesUnder(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((entry) => fs.statSync(path.join(root, entry)).isFile())
    .sort();
}
