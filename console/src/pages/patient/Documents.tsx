import { unwrap } from '@cairn/client';
import { fromPageObject, usePaged } from '../../hooks.ts';
import { Table, text, when } from '../../ui.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface FileRow {
  id: string;
  originalName: string;
  size: number;
  contentType: string;
  /** A signed link, valid five minutes from when the page was read. */
  url?: string;
}
interface SummaryRow {
  id: string;
  jsonBody: Record<string, unknown> & { type?: string; files?: FileRow[] | null; created_at?: string };
}

const kilobytes = (size: number) => `${Math.max(1, Math.round(size / 1024))} kB`;

/**
 * The patient's document summaries and their files. Each file's Download is a signed link (the
 * page read with signedUrls=true), which works without the token; the links last five minutes,
 * so the section can fetch fresh ones.
 */
export function Documents(props: SectionProps) {
  const { client } = props.session;
  const path = patientPath(props);
  const list = usePaged(
    async (page) => {
      const listed = await unwrap(
        client.GET('/{tenantName}/{instanceName}/patients/{patientId}/document-summary', {
          params: { path, query: { page, size: SECTION_SIZE, signedUrls: true } },
        }),
      );
      return fromPageObject<SummaryRow>(listed.data);
    },
    [client, props.patientId],
  );
  return (
    <PatientSection title="Documents" busy={list.loading} error={list.error}>
      <Table
        label="Documents"
        list={list}
        head={['Type', 'Created', 'Files']}
        empty="No documents."
        row={(summary) => (
          <tr key={summary.id} data-document={summary.id}>
            <td>{text(summary.jsonBody.type)}</td>
            <td>{when(summary.jsonBody.created_at)}</td>
            <td>
              {summary.jsonBody.files?.length ? (
                <ul class="files">
                  {summary.jsonBody.files.map((file) => (
                    <li key={file.id}>
                      {file.url ? (
                        <a href={file.url} download={file.originalName} aria-label={`Download ${file.originalName}`}>
                          {file.originalName}
                        </a>
                      ) : (
                        file.originalName
                      )}{' '}
                      <small>
                        ({file.contentType}, {kilobytes(file.size)})
                      </small>
                    </li>
                  ))}
                </ul>
              ) : (
                'No files'
              )}
            </td>
          </tr>
        )}
      />
      {list.rows.some((row) => row.jsonBody.files?.length) && (
        <p class="actions">
          <small>Download links last five minutes.</small>
          <button type="button" class="secondary outline" onClick={list.reload} aria-busy={list.loading ? 'true' : undefined}>
            Refresh the links
          </button>
        </p>
      )}
    </PatientSection>
  );
}
