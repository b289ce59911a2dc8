import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describeError, type Session } from './session.ts';

/** What every page is given: the session, the rest of its path (`patients/<id>` gives `<id>`), and navigation. */
export interface PageProps {
  session: Session;
  subpath: string;
  /** Goes to a console path (`patients/<id>`), as the navigation bar does. */
  go: (to: string) => void;
}

/** The API's error for a page or a form, announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p role="alert" class="error" data-testid="error">
      {describeError(error)}
    </p>
  );
}

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  /** The API's message for this field (VALIDATION_ERROR details), shown beside it. */
  error?: string | undefined;
  type?: 'text' | 'password' | 'email' | 'search' | 'datetime-local';
  required?: boolean;
  autocomplete?: string;
  hint?: string;
}

/** A labelled input whose API error sits beside it and is tied to it (aria-invalid, aria-describedby). */
export function Field({ label, name, value, onInput, error, type = 'text', required, autocomplete, hint }: FieldProps) {
  const id = `field-${name}`;
  const note = error ?? hint;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type as 'text'}
        value={value}
        required={required}
        autocomplete={autocomplete ?? 'off'}
        onInput={(event) => onInput((event.target as HTMLInputElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={note ? `${id}-note` : undefined}
      />
      {note && (
        <small id={`${id}-note`} data-field-error={error ? name : undefined}>
          {note}
        </small>
      )}
    </div>
  );
}

export interface Meta {
  page: number;
  totalPages: number;
  totalElements: number;
}

/** Previous and next over a data-and-meta list (pages are zero-based in the API, one-based on screen). */
export function Pager({ meta, onPage, label }: { meta: Meta | undefined; onPage: (page: number) => void; label: string }) {
  if (!meta) return null;
  const last = Math.max(0, meta.totalPages - 1);
  return (
    <nav aria-label={`${label} pages`} class="pager">
      <button type="button" class="secondary" disabled={meta.page <= 0} onClick={() => onPage(meta.page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {meta.totalPages === 0 ? 0 : meta.page + 1} of {meta.totalPages} ({meta.totalElements} in all)
      </span>
      <button type="button" class="secondary" disabled={meta.page >= last} onClick={() => onPage(meta.page + 1)}>
        Next
      </button>
    </nav>
  );
}

/**
 * A secret shown once, with a button copying it: an API client's (with its key; only a hash is
 * kept) or a webhook's signing secret (`note` says what it is for).
 */
export function SecretOnce({
  title,
  clientKey,
  note,
  secret,
  onClose,
}: {
  title: string;
  clientKey?: string;
  note?: ComponentChildren;
  secret: string;
  onClose: () => void;
}) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard');
    } catch {
      setCopied('Copying was refused: select the secret and copy it');
    }
  };
  return (
    <article aria-labelledby="secret-title" data-testid="secret">
      <h3 id="secret-title">{title}</h3>
      <p>
        {clientKey !== undefined && (
          <>
            Key <code data-testid="client-key">{clientKey}</code>.{' '}
          </>
        )}
        {note ?? 'The secret is shown this once: only its hash is kept.'}
      </p>
      <p>
        <code data-testid="secret-value" class="secret">
          {secret}
        </code>
      </p>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Done
        </button>
      </div>
      <p aria-live="polite">{copied}</p>
    </article>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A table's scrolling box: focusable and named, so a keyboard can scroll a wide table at 390 px. */
export function Scroll({ label, busy, children }: { label: string; busy: boolean; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard
    <section class="overflow-auto" tabIndex={0} aria-label={label} aria-busy={busy ? 'true' : undefined}>
      {children}
    </section>
  );
}

/** A search box over a list: submitting it hands the trimmed text to `onSearch`. */
export function SearchBar({ id, label, onSearch }: { id: string; label: string; onSearch: (text: string) => void }) {
  return (
    <search>
      <form
        class="searchbar"
        onSubmit={(event) => {
          event.preventDefault();
          const input = (event.currentTarget as HTMLFormElement).elements.namedItem(id) as HTMLInputElement;
          onSearch(input.value.trim());
        }}
      >
        <label for={id}>{label}</label>
        <input id={id} name={id} type="search" />
        <button type="submit">Search</button>
      </form>
    </search>
  );
}

/** What a list says when it is empty and nothing went wrong. */
export function Empty({ when, children }: { when: boolean; children: ComponentChildren }) {
  return when ? <p data-testid="empty">{children}</p> : null;
}

/** `aria-busy` for a control whose action is under way. */
export const busyIf = (busy: boolean) => (busy ? ('true' as const) : undefined);

/**
 * A table of one page of a list's rows, with its pager and what it says when empty. The pager shows
 * from two pages on, or always with `alwaysPaged` (a page's main list).
 */
export function Table<T>({
  label,
  list,
  head,
  row,
  empty,
  alwaysPaged = false,
}: {
  label: string;
  list: {
    rows: T[];
    loading: boolean;
    error: unknown;
    meta?: { page: number; totalPages: number; totalElements: number } | undefined;
    setPage?: (page: number) => void;
  };
  head: string[];
  row: (item: T) => ComponentChildren;
  empty: ComponentChildren;
  alwaysPaged?: boolean;
}) {
  return (
    <>
      {list.rows.length > 0 && (
        <Scroll label={`${label} table`} busy={list.loading}>
          <table>
            <thead>
              <tr>
                {head.map((name) => (
                  <th scope="col" key={name}>
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{list.rows.map(row)}</tbody>
          </table>
        </Scroll>
      )}
      <Empty when={list.rows.length === 0 && !list.loading && !list.error}>{empty}</Empty>
      {list.setPage && list.meta && (alwaysPaged || list.meta.totalPages > 1) && (
        <Pager meta={list.meta} onPage={list.setPage} label={label} />
      )}
    </>
  );
}

/** A date-time as the browser's locale shows it; a dash when there is none. */
export const when = (value: unknown) => (typeof value === 'string' && value ? new Date(value).toLocaleString() : '—');
/** A day (birth dates): the date part only, as stored. */
export const day = (value: unknown) => (typeof value === 'string' && value ? value.slice(0, 10) : '—');
/** Text, or a dash. */
export const text = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));
