import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.ts';

/** Every method the API uses, so a browser app's preflight passes for each route. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The docs page (Swagger UI) loads its own scripts and styles from /docs and fetches
 * /openapi.json; nothing else. It sets no inline <script>; its React components set styles.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Security headers on every response (helmet) and CORS for browser apps (DECISIONS §1).
 * The API answers JSON and files, never pages, so its own CSP forbids everything; /docs has its own.
 */
export async function registerBrowserSecurity(app: FastifyInstance, config: Config): Promise<void> {
  // Helmet's headers are worked out once: @fastify/helmet built helmet's whole middleware again
  // on every request (its CSP parsed, a function per header: ~3 KB of garbage a request).
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' },
    // Browser apps on other origins show signed files (images, PDFs) in their own pages.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginOpenerPolicy: false,
    referrerPolicy: { policy: 'no-referrer' },
    // Only when clients reach Cairn over TLS (usually through a proxy): on plain HTTP it would strand them.
    strictTransportSecurity: config.hsts ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
  // Their values depend on no request: helmet writes them once into a list, and each response gets
  // the list (helmet's chain of eleven middlewares ran per request: ~2% of a worker's time under
  // reads by id, measured 2026-12-04).
  const headers: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, String(value)]),
    removeHeader: (name: string) => removed.push(name),
  };
  securityHeaders({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    for (const name of removed) reply.raw.removeHeader(name);
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
  await app.register(cors, {
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
    methods: METHODS,
    allowedHeaders: ['Authorization', 'Content-Type', 'Range', 'X-Request-Id', 'Idempotency-Key'],
    exposedHeaders: [
      'Retry-After',
      'X-Request-Id',
      'Content-Disposition',
      'Content-Range',
      'Content-Length',
      'Accept-Ranges',
      'Location',
      'Idempotent-Replayed',
    ],
    maxAge: 600,
  });
}
