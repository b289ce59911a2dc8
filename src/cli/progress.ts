import { SingleBar } from 'cli-progress';

/** A progress bar on stderr for the long commands (seed bulk, copy). */
export function progressBar(format: string): SingleBar {
  // Without a terminal (CI, logs), it prints a line every few seconds instead of redrawing.
  return new SingleBar({
    format,
    barsize: 30,
    hideCursor: true,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 5000,
  });
}
