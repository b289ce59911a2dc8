/**
 * Cairn's TypeScript client: openapi-fetch over the types generated from the server's OpenAPI
 * document (schema.ts), with a thin layer for tokens, retries, idempotency keys and paging.
 */
export { type CairnClient, type CairnClientOptions, createCairnClient } from './client.ts';
export { type ApiErrorObject, CairnError, errorObjectOf, unwrap } from './errors.ts';
export { type RetryOptions, retryAfterMs } from './fetch.ts';
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
} from './paging.ts';
export type { paths } from './schema.ts';
export { type Credentials, type IssuedToken, TokenSource } from './tokens.ts';
