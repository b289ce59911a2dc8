import type { PageProps } from '../ui.tsx';

/** Being built (issue 20). */
export function Webhooks(_props: PageProps) {
  return <h1>Webhooks</h1>;
}
