import { useMemo, useState } from 'preact/hooks';
import { useLoad } from '../../hooks.ts';
import type { Session } from '../../session.ts';
import { ErrorMessage, Scroll, Section } from '../../ui.tsx';
import { loadVersion, type VersionKey, versionName } from './api.ts';
import { pretty, type Row, type Side, sideBySide } from './diff.ts';

interface Props {
  session: Session;
  /** The published version numbers, newest first. */
  versions: number[];
  hasDraft: boolean;
  current: number | undefined;
  /** Changes when a version may have changed (a save or a publish): the documents are fetched again. */
  stamp: number;
}

const keyOf = (value: string): VersionKey => (value === 'draft' ? 'draft' : Number(value));
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Two versions chosen by number (or the draft), their pretty-printed documents diffed line by line, side by side. */
export function Compare({ session, versions, hasDraft, current, stamp }: Props) {
  const [from, setFrom] = useState<VersionKey>();
  const [to, setTo] = useState<VersionKey>();
  const left = from ?? current ?? versions.at(-1) ?? 'draft';
  const right = to ?? (hasDraft ? 'draft' : (current ?? 'draft'));
  const key = `${left}|${right}|${stamp}`;
  const {
    value: documents,
    loading,
    error,
  } = useLoad(async () => {
    const [a, b] = await Promise.all([loadVersion(session, left), loadVersion(session, right)]);
    return { key, left: a?.formation, right: b?.formation };
  }, [session, key]);

  const diff = useMemo(
    () => (documents?.left && documents.right ? sideBySide(pretty(documents.left), pretty(documents.right)) : undefined),
    [documents],
  );
  const options = [...(hasDraft ? (['draft'] as const) : []), ...versions];
  const label = (value: VersionKey) => (value === 'draft' ? 'Draft' : `Version ${value}${value === current ? ' (current)' : ''}`);
  const title = `Differences between ${versionName(left)} and ${versionName(right)}`;
  const stale = documents?.key !== key;

  return (
    <Section title="Compare two versions">
      <div class="grid">
        {(['from', 'to'] as const).map((side) => (
          <div key={side}>
            <label for={`compare-${side}`}>{side === 'from' ? 'From (left)' : 'To (right)'}</label>
            <select
              id={`compare-${side}`}
              value={String(side === 'from' ? left : right)}
              onChange={(event) => (side === 'from' ? setFrom : setTo)(keyOf((event.target as HTMLSelectElement).value))}
            >
              {options.map((value) => (
                <option key={value} value={String(value)}>
                  {label(value)}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
      <ErrorMessage error={error} />
      <p aria-live="polite" data-testid="diff-count">
        {error
          ? ''
          : loading || stale
            ? 'Loading…'
            : !diff
              ? ''
              : diff.added + diff.removed === 0
                ? `No changes: ${versionName(left)} and ${versionName(right)} are the same.`
                : `${plural(diff.added + diff.removed, 'changed line')}: ${diff.added} added, ${diff.removed} removed.`}
      </p>
      <Scroll label={title} busy={loading}>
        {diff && !stale && diff.rows.length > 0 && diff.added + diff.removed > 0 && (
          <table class="formation-diff" data-testid="diff">
            <caption class="visually-hidden">{title}. Lines marked − are removed, lines marked + are added.</caption>
            <colgroup>
              <col class="number" />
              <col />
            </colgroup>
            <colgroup>
              <col class="number" />
              <col />
            </colgroup>
            <thead>
              <tr>
                <th scope="colgroup" colSpan={2}>
                  {label(left)}
                </th>
                <th scope="colgroup" colSpan={2}>
                  {label(right)}
                </th>
              </tr>
            </thead>
            <tbody>
              {diff.rows.map((row, index) => (
                <DiffRow key={index} row={row} />
              ))}
            </tbody>
          </table>
        )}
      </Scroll>
    </Section>
  );
}

function DiffRow({ row }: { row: Row }) {
  if (row.kind === 'fold') {
    return (
      <tr class="fold">
        <td colSpan={4}>⋯ {plural(row.count, 'unchanged line')} ⋯</td>
      </tr>
    );
  }
  if (row.kind === 'same') {
    return (
      <tr>
        <Cells side={row.left} mark=" " />
        <Cells side={row.right} mark=" " />
      </tr>
    );
  }
  return (
    <tr>
      <Cells side={row.left} mark="−" />
      <Cells side={row.right} mark="+" />
    </tr>
  );
}

/** A line number and a line; removed lines are `<del>` marked −, added ones `<ins>` marked +: not colour alone. */
function Cells({ side, mark }: { side: Side | undefined; mark: '−' | '+' | ' ' }) {
  if (!side) {
    return (
      <>
        <td class="number" />
        <td class="line blank" />
      </>
    );
  }
  const text = `${mark} ${side.text}`;
  return (
    <>
      <td class="number">{side.number}</td>
      {mark === '−' ? (
        <td class="line removed">
          <del>{text}</del>
        </td>
      ) : mark === '+' ? (
        <td class="line added">
          <ins>{text}</ins>
        </td>
      ) : (
        <td class="line">{text}</td>
      )}
    </>
  );
}
