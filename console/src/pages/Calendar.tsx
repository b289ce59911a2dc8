import type { PageProps } from '../ui.tsx';

/** Being built (issue 20). */
export function Calendar(_props: PageProps) {
  return <h1>Calendar</h1>;
}
