/**
 * Async iterators over the four paged shapes the API answers with. Each takes a function that
 * fetches one page (usually `unwrap(cairn.GET(...))`, narrowed to the page when a list nests it)
 * and reads on until the server says there is no more:
 *
 *   for await (const patient of pageObjectItems((page) =>
 *     unwrap(cairn.GET('/{tenantName}/{instanceName}/patients', { params: { path: at, query: { page, size: 100 } } })),
 *   )) console.log(patient.id);
 */

/** 000's "page object" (Spring's Page): `content`, `last`, … (patients, contacts, faxes, invoices, CDT records' `data`). */
export interface PageObjectPage<T> {
  content: T[];
  last: boolean;
}

/** 000's "data and meta": `data` and `metaInfo.lastPage` (tasks, encounters, users, audit, PDT records' `records`). */
export interface DataAndMetaPage<T> {
  data: T[];
  metaInfo: { lastPage: boolean };
}

/** The bulk export's cursor pages: `data`, and `cursor.end` to send back as `start` while `cursor.hasNext`. */
export interface ExportPage<T> {
  data: T[];
  cursor: { start: string | null; end: string; hasNext: boolean };
}

/** Token pages (chat, its search): `content`, and `meta.nextPageToken` until it is null. */
export interface TokenPage<T> {
  content: T[];
  meta: { nextPageToken: string | null };
}

/** Every item of an offset list of page objects, from page `firstPage` (0) to the last. */
export async function* pageObjectItems<T>(fetchPage: (page: number) => Promise<PageObjectPage<T>>, firstPage = 0) {
  for (let page = firstPage; ; page++) {
    const body = await fetchPage(page);
    yield* body.content;
    if (body.last || body.content.length === 0) return;
  }
}

/** Every item of an offset list of data-and-meta pages, from page `firstPage` (0) to the last. */
export async function* dataAndMetaItems<T>(fetchPage: (page: number) => Promise<DataAndMetaPage<T>>, firstPage = 0) {
  for (let page = firstPage; ; page++) {
    const body = await fetchPage(page);
    yield* body.data;
    if (body.metaInfo.lastPage || body.data.length === 0) return;
  }
}

/**
 * Every page of an export walk, from `start` (the oldest record when absent). Keep the last
 * page's `cursor.end`: starting there later gives what changed since.
 */
export async function* exportPages<T>(fetchPage: (start: string | undefined) => Promise<ExportPage<T>>, start?: string) {
  let next = start;
  for (;;) {
    const page = await fetchPage(next);
    yield page;
    if (!page.cursor.hasNext) return;
    // 002: `end` goes back exactly as it came (it may carry more than microseconds).
    next = page.cursor.end;
  }
}

/** Every record of an export walk (see exportPages). */
export async function* exportItems<T>(fetchPage: (start: string | undefined) => Promise<ExportPage<T>>, start?: string) {
  for await (const page of exportPages(fetchPage, start)) yield* page.data;
}

/** Every item of a token-paged list, newest first, to the oldest. */
export async function* tokenPageItems<T>(fetchPage: (pageToken: string | undefined) => Promise<TokenPage<T>>) {
  let pageToken: string | undefined;
  for (;;) {
    const body = await fetchPage(pageToken);
    yield* body.content;
    if (!body.meta.nextPageToken || body.content.length === 0) return;
    pageToken = body.meta.nextPageToken;
  }
}
