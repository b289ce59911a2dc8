import type { PageProps } from '../ui.tsx';

/** Being built (issue 20). */
export function Patients(_props: PageProps) {
  return <h1>Patients</h1>;
}
