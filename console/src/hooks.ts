import { useEffect, useState } from 'preact/hooks';
import { fieldErrors } from './session.ts';
import type { Meta } from './ui.tsx';

/** The API's two list shapes, as the pager reads them: data-and-meta, and the page object. */
interface DataAndMeta {
  data: readonly unknown[];
  metaInfo: { page: number; totalPages: number; totalElements: number };
}
interface PageObject {
  content: readonly unknown[];
  number: number;
  totalPages: number;
  totalElements: number;
}
export interface Paged<T> {
  rows: T[];
  meta: Meta;
}

/** A data-and-meta answer as rows of the page's own view `T` (the fields it shows). */
export const fromDataAndMeta = <T>(body: DataAndMeta): Paged<T> => ({
  rows: body.data as T[],
  meta: { page: body.metaInfo.page, totalPages: body.metaInfo.totalPages, totalElements: body.metaInfo.totalElements },
});
/** A page-object answer (content, number, totalPages) as rows of `T`. */
export const fromPageObject = <T>(body: PageObject): Paged<T> => ({
  rows: body.content as T[],
  meta: { page: body.number, totalPages: body.totalPages, totalElements: body.totalElements },
});

/** One answer loaded when `deps` change; a later answer wins over an earlier one still in flight. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]) {
  const [value, setValue] = useState<T>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load()
      .then((loaded) => {
        if (!live) return;
        setValue(loaded);
        setError(undefined);
      })
      .catch((caught) => live && setError(caught))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [version, ...deps]);
  return { value, loading, error, reload: () => setVersion((v) => v + 1) };
}

/**
 * One page of a list, loaded when the page or any of `deps` changes. Filters reset the page with
 * `setPage(0)`; `reload()` fetches again.
 */
export function usePaged<T>(load: (page: number) => Promise<Paged<T>>, deps: readonly unknown[]) {
  const [page, setPage] = useState(0);
  const loaded = useLoad(() => load(page), [page, ...deps]);
  const { value, loading, error, reload } = loaded;
  return { rows: value?.rows ?? [], meta: value?.meta, loading, error, page, setPage, reload };
}

/**
 * A write started by a button or a form: which one is under way (its `busy` key shows progress),
 * the API's error (with its field errors), and the sentence said when it is done.
 */
export function useAction() {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState('');

  /** Runs `action` as `key`; a sentence it returns is announced. Resolves true when it succeeded. */
  const run = async (key: string, action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(key);
    setError(undefined);
    setDone('');
    try {
      const said = await action();
      setDone(typeof said === 'string' ? said : '');
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(undefined);
    }
  };

  return { busy, error, done, fields: fieldErrors(error), run, clearError: () => setError(undefined) };
}
