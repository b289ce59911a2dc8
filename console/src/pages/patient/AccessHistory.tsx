import { unwrap } from '@cairn/client';
import { usePaged } from '../../hooks.ts';
import { busyIf } from '../../ui.tsx';
import { AccessError, AccessTable, accessRows } from '../access-log/records.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

/**
 * Who saw this patient's data, newest first. Opening this page is itself written to the log, so
 * Refresh fetches again; reading the log is not logged (it holds ids and metadata only).
 */
export function AccessHistory(props: SectionProps) {
  const { client } = props.session;
  const path = patientPath(props);
  const list = usePaged(
    async (page) =>
      accessRows(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/access-log', {
            params: { path, query: { page, size: SECTION_SIZE } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  // The section's own error slot stays empty: AccessError says a refusal plainly.
  return (
    <PatientSection title="Access history" busy={list.loading} error={undefined}>
      <AccessError error={list.error} />
      <AccessTable label="Access history" list={list} />
      {!list.error && (
        <p class="actions">
          <button type="button" class="secondary outline" onClick={list.reload} aria-busy={busyIf(list.loading)}>
            Refresh the history
          </button>
        </p>
      )}
    </PatientSection>
  );
}
