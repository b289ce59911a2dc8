import { unwrap } from '@cairn/client';
import { fromDataAndMeta, usePaged } from '../../hooks.ts';
import { Table, text, when } from '../../ui.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface ProgramRow {
  id: string | null;
  programName: string;
  programTitle: string | null;
  status: string | null;
  currentPhase: { name: string; title: string | null; timestamp: string } | null;
}

/** The programs the patient is enrolled in, each with its current phase. */
export function Programs(props: SectionProps) {
  const { client } = props.session;
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<ProgramRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/programs', {
            params: { path: patientPath(props), query: { page, size: SECTION_SIZE, assignedPrograms: true } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  return (
    <PatientSection title="Programs" busy={list.loading} error={list.error}>
      <Table
        label="Programs"
        list={list}
        head={['Program', 'Status', 'Current phase', 'Since']}
        empty="Not enrolled in any program."
        row={(program) => (
          <tr key={program.id ?? program.programName} data-program={program.programName}>
            <td>{program.programTitle ?? program.programName}</td>
            <td>{text(program.status)}</td>
            <td>{text(program.currentPhase?.title ?? program.currentPhase?.name)}</td>
            <td>{when(program.currentPhase?.timestamp)}</td>
          </tr>
        )}
      />
    </PatientSection>
  );
}
