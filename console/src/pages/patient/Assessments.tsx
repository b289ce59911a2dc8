import { unwrap } from '@cairn/client';
import { fromPageObject, usePaged } from '../../hooks.ts';
import { Table, text, when } from '../../ui.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface AssessmentRow {
  id: string;
  assessmentName: string;
  assessmentTitle: string | null;
  status: string;
  createdAt: string;
  finalizedDate: string | null;
  completedByName: string | null;
}

/** The patient's assessment records. */
export function Assessments(props: SectionProps) {
  const { client } = props.session;
  const list = usePaged(
    async (page) =>
      fromPageObject<AssessmentRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/assessment-records', {
            params: { path: patientPath(props), query: { page, size: SECTION_SIZE } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  return (
    <PatientSection title="Assessments" busy={list.loading} error={list.error}>
      <Table
        label="Assessments"
        list={list}
        head={['Assessment', 'Status', 'Created', 'Completed by']}
        empty="No assessments."
        row={(record) => (
          <tr key={record.id} data-assessment={record.assessmentName}>
            <td>{record.assessmentTitle ?? record.assessmentName}</td>
            <td>{record.status}</td>
            <td>{when(record.createdAt)}</td>
            <td>{text(record.completedByName)}</td>
          </tr>
        )}
      />
    </PatientSection>
  );
}
