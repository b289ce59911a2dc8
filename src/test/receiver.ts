import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

/** A request a receiver got: its headers, its body as sent, and when (real time) it arrived. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: Record<string, any>;
  at: number;
}

/**
 * What a receiver does with a request: answer a status, or hang (a timeout) for `delayMs` first, or
 * until `until` settles (a request held while the test looks at what else happens).
 */
export type Answer = number | { status: number; delayMs?: number; location?: string; until?: Promise<unknown> };

/**
 * A webhook receiver on a loopback port, for the tests: it records every request and answers as
 * told (`answers` is consumed one per request, then `otherwise`). Closed when the file's tests end.
 */
export async function startReceiver(otherwise: Answer = 200) {
  const received: Received[] = [];
  const answers: Answer[] = [];
  let fallback = otherwise;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(body);
      } catch {}
      received.push({ path: request.url ?? '/', headers: request.headers as Record<string, string>, body, json, at: Date.now() });
      const answer = answers.shift() ?? fallback;
      const { status, delayMs = 0, location, until } = typeof answer === 'number' ? { status: answer } : answer;
      const reply = () => {
        if (response.writableEnded || response.destroyed) return;
        response.writeHead(status, location ? { location } : {});
        response.end('{}');
      };
      if (until) {
        until.then(reply, reply);
        return;
      }
      const timer = setTimeout(reply, delayMs);
      response.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    /** The next requests' answers, in order. */
    answer(...next: Answer[]) {
      answers.push(...next);
    },
    /** The answer once the queued ones are used. */
    otherwise(answer: Answer) {
      fallback = answer;
    },
    clear() {
      received.length = 0;
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
