/**
 * Cairn's TypeScript client: openapi-fetch over the types generated from the server's OpenAPI
 * document (schema.ts), with a thin layer for tokens, retries, idempotency keys and paging.
 */
export { type CairnClient, type CairnClientOptions, createCairnClient } from './client.js';
export { type ApiErrorObject, CairnError, errorObjectOf, unwrap } from './errors.js';
export { type RetryOptions, retryAfterMs } from './fetch.js';
export {
  type DataAndMetaPage,
  dataAndMetaItems,
  type ExportPage,
  exportItems,
  exportPages,
  type PageObjectPage,
  pageObjectItems,
  type TokenPage,
  tokenPageItems,
} from './paging.js';
export type { paths } from './schema.js';
export { type Credentials, type IssuedToken, TokenSource } from './tokens.js';
