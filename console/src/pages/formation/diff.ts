import { diffLines } from 'diff';

/** One side of a row: its line number in that document and its text; absent where the other side has a line alone. */
export interface Side {
  number: number;
  text: string;
}

/** A row of the side-by-side view: a line kept on both sides, removed on the left, added on the right, or both (changed). */
export type Row =
  | { kind: 'same'; left: Side; right: Side }
  | { kind: 'change'; left?: Side; right?: Side }
  /** A run of unchanged lines folded away: `count` of them. */
  | { kind: 'fold'; count: number };

export interface SideBySide {
  rows: Row[];
  added: number;
  removed: number;
}

const linesOf = (value: string) => {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

/** How a document reads in the console and in its diff: two-space JSON. */
export const pretty = (document: unknown) => JSON.stringify(document, null, 2);

/**
 * The line diff of two texts as side-by-side rows (jsdiff's `diffLines`): removed lines are paired
 * with the added lines that follow them, and unchanged runs longer than `context` lines on either
 * side of a change are folded.
 */
export function sideBySide(before: string, after: string, context = 3): SideBySide {
  const rows: Row[] = [];
  let left = 1;
  let right = 1;
  let added = 0;
  let removed = 0;
  let pendingRemoved: Side[] = [];

  const flush = (addedLines: Side[] = []) => {
    const count = Math.max(pendingRemoved.length, addedLines.length);
    for (let i = 0; i < count; i++) {
      const row: Row = { kind: 'change' };
      if (pendingRemoved[i]) row.left = pendingRemoved[i];
      if (addedLines[i]) row.right = addedLines[i];
      rows.push(row);
    }
    pendingRemoved = [];
  };

  for (const part of diffLines(before, after)) {
    const lines = linesOf(part.value);
    if (part.removed) {
      removed += lines.length;
      pendingRemoved.push(...lines.map((text) => ({ number: left++, text })));
    } else if (part.added) {
      added += lines.length;
      flush(lines.map((text) => ({ number: right++, text })));
    } else {
      flush();
      for (const text of lines) rows.push({ kind: 'same', left: { number: left++, text }, right: { number: right++, text } });
    }
  }
  flush();
  return { rows: fold(rows, context), added, removed };
}

/** Unchanged runs reduced to `context` lines beside each change, the rest counted in one fold row. */
function fold(rows: Row[], context: number): Row[] {
  const near = rows.map(() => false);
  rows.forEach((row, index) => {
    if (row.kind !== 'change') return;
    for (let i = Math.max(0, index - context); i <= Math.min(rows.length - 1, index + context); i++) near[i] = true;
  });
  const folded: Row[] = [];
  let hidden = 0;
  rows.forEach((row, index) => {
    if (row.kind === 'same' && !near[index]) {
      hidden++;
      return;
    }
    if (hidden > 0) folded.push({ kind: 'fold', count: hidden });
    hidden = 0;
    folded.push(row);
  });
  if (hidden > 0) folded.push({ kind: 'fold', count: hidden });
  return folded;
}
