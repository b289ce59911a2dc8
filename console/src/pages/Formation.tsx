import type { PageProps } from '../ui.tsx';

/** Being built (issue 20). */
export function Formation(_props: PageProps) {
  return <h1>Formation</h1>;
}
