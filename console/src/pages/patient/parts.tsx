import type { ComponentChildren } from 'preact';
import type { Session } from '../../session.ts';
import { ErrorMessage } from '../../ui.tsx';

/** What every section of a patient's page is given. */
export interface SectionProps {
  session: Session;
  patientId: string;
}

/** Rows per page in a section of the patient's page. */
export const SECTION_SIZE = 5;

/** The path parameters of a patient's routes. */
export const patientPath = ({ session, patientId }: SectionProps) => ({
  tenantName: session.tenantName,
  instanceName: session.instanceName,
  patientId,
});

/** A section of the patient's page: its heading, its own error and its progress. */
export function PatientSection({
  title,
  busy,
  error,
  children,
}: {
  title: string;
  busy: boolean;
  error: unknown;
  children?: ComponentChildren;
}) {
  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section aria-labelledby={id} aria-busy={busy ? 'true' : undefined} class="patient-section" data-section={title}>
      <h2 id={id}>{title}</h2>
      <ErrorMessage error={error} />
      {!error && children}
    </section>
  );
}
