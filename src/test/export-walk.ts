import assert from 'node:assert/strict';
import type { TestTenant } from './harness.ts';

/** One page of `/export/{resourceName}`, as the route answers it. */
export interface ExportPage<T> {
  data: T[];
  cursor: { start: string | null; end: string; hasNext: boolean; pageSize: number };
}

export interface ExportWalk {
  /** One record a page unless told: every step of the cursor is taken. */
  pageSize?: number;
  /** More of the query, as `&name=value` (`&patientIds=...`). */
  query?: string;
  /** Run after each page but the last, before the next is asked for (`page` counts from 0). */
  between?: (page: number) => Promise<void>;
}

/** Far more pages than any test writes records: a cursor that loops fails the test instead of hanging it. */
const MOST_PAGES = 10_000;

/**
 * Every page of `resource`, as a client walks it: `end` back as `start` until hasNext is false;
 * each page 200 and naming the start it was asked for.
 */
export async function walkExportPages<T = { id: string }>(
  t: Pick<TestTenant, 'api' | 'base'>,
  resource: string,
  { pageSize = 1, query = '', between }: ExportWalk = {},
): Promise<ExportPage<T>[]> {
  const pages: ExportPage<T>[] = [];
  let start: string | null = null;
  for (let page = 0; page < MOST_PAGES; page++) {
    const from: string = start === null ? '' : `&start=${encodeURIComponent(start)}`;
    const response = await t.api.get<ExportPage<T>>(`${t.base}/export/${resource}?pageSize=${pageSize}${query}${from}`);
    assert.equal(response.status, 200, `${resource}: ${response.text}`);
    assert.equal(response.body.cursor.start, start, `${resource}: the page's start`);
    pages.push(response.body);
    if (!response.body.cursor.hasNext) return pages;
    start = response.body.cursor.end;
    await between?.(page);
  }
  throw new Error(`${resource}: the walk did not end`);
}

/** Every record of `resource` a walk to its end meets, in the order met. */
export async function walkExport<T = { id: string }>(
  t: Pick<TestTenant, 'api' | 'base'>,
  resource: string,
  walk: ExportWalk = {},
): Promise<T[]> {
  return (await walkExportPages<T>(t, resource, walk)).flatMap((page) => page.data);
}
