/** SQL helpers every store shares. */

/** A LIKE pattern matching `term` anywhere, with its wildcards escaped so user input matches literally. */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
