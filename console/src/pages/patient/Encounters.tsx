import { unwrap } from '@cairn/client';
import { fromDataAndMeta, usePaged } from '../../hooks.ts';
import { Table, text, when } from '../../ui.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface EncounterRow {
  id: string;
  jsonBody: Record<string, unknown>;
}

/** The patient's encounters, newest as the API orders them. */
export function Encounters(props: SectionProps) {
  const { client } = props.session;
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<EncounterRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/encounters', {
            params: { path: patientPath(props), query: { page, size: SECTION_SIZE } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  return (
    <PatientSection title="Encounters" busy={list.loading} error={list.error}>
      <Table
        label="Encounters"
        list={list}
        head={['Title', 'Type', 'Status', 'Starts', 'Host']}
        empty="No encounters."
        row={({ id, jsonBody: body }) => (
          <tr key={id} data-encounter={id}>
            <td>{text(body.title)}</td>
            <td>{text(body.templateTitle ?? body.type)}</td>
            <td>{text(body.status)}</td>
            <td>{when(body.startDatetime)}</td>
            <td>{text(body.ownerUserName)}</td>
          </tr>
        )}
      />
    </PatientSection>
  );
}
