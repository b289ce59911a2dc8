import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The operator's console (console/, a Vite app on the typed client), built into console/dist by
 * `npm ci` (the root's `prepare`) and served here at /console/. It is only files: every call it
 * makes goes to the public API with the signed-in caller's own token.
 */
export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/** The console loads its own script and styles and calls this server; Pico's icons are data: SVGs. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "base-uri 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

const NOT_BUILT =
  'The operator console is not built on this server: run `npm run build:console` (or `npm ci`, which builds it) and restart.\n';

export function registerConsole(app: FastifyInstance, dist: string | undefined = CONSOLE_DIST): void {
  const root = path.resolve(dist ?? CONSOLE_DIST);

  async function send(reply: FastifyReply, file: string) {
    let body: Buffer;
    try {
      body = await fs.readFile(file);
    } catch {
      if (file.endsWith('index.html')) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
    }
    return reply
      .header('content-security-policy', CONSOLE_CSP)
      .type(TYPES[path.extname(file)] ?? 'application/octet-stream')
      .send(body);
  }

  const index = (_request: unknown, reply: FastifyReply) => send(reply, path.join(root, 'index.html'));
  const hide = { schema: { hide: true } };
  app.get('/console', hide, index);
  app.get<{ Params: { '*': string } }>('/console/*', hide, async (request, reply) => {
    const rest = request.params['*'];
    // Built files (the hashed bundles under assets/, anything else Vite copies) are served as they
    // are; every other path is one of the app's pages, which its own router shows (index.html).
    if (/\.[a-z0-9]+$/i.test(rest)) {
      const file = path.resolve(root, rest);
      if (!file.startsWith(root + path.sep)) return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
      return send(reply, file);
    }
    return index(request, reply);
  });
}
