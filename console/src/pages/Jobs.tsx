import { unwrap } from '@cairn/client';
import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../session.ts';
import { ErrorMessage, type Meta, Pager, Scroll } from '../ui.tsx';

const SIZE = 20;
const STATES = ['DEAD', 'QUEUED', 'WAITING', 'RUNNING'] as const;
type JobState = (typeof STATES)[number];

interface JobRow {
  id: string;
  kind: string;
  state: JobState;
  attempts: number;
  lastError: string | null;
  updatedAt: string;
}

/** The tenant's background jobs, DEAD ones first: out of attempts, each requeued with a button. */
export function Jobs({ session }: { session: Session }) {
  const { client, tenantName } = session;
  const [state, setState] = useState<JobState>('DEAD');
  const [page, setPage] = useState(0);
  const [rows, setRows] = useState<JobRow[]>([]);
  const [meta, setMeta] = useState<Meta>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [busyRow, setBusyRow] = useState<string>();
  const [done, setDone] = useState('');
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    setLoading(true);
    unwrap(client.GET('/{tenantName}/admin/jobs', { params: { path: { tenantName }, query: { page, size: SIZE, state } } }))
      .then((body) => {
        if (!live) return;
        setRows(body.data as JobRow[]);
        setMeta({ page: body.metaInfo.page, totalPages: body.metaInfo.totalPages, totalElements: body.metaInfo.totalElements });
        setError(undefined);
      })
      .catch((caught) => live && setError(caught))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [client, tenantName, page, state, version]);

  const requeue = async (job: JobRow) => {
    setBusyRow(job.id);
    setError(undefined);
    setDone('');
    try {
      await unwrap(client.POST('/{tenantName}/admin/jobs/{jobId}/retry', { params: { path: { tenantName, jobId: job.id } } }));
      setDone(`The ${job.kind} job was requeued`);
      setVersion((v) => v + 1);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusyRow(undefined);
    }
  };

  return (
    <>
      <h1>Jobs</h1>
      <label for="job-state">State</label>
      <select
        id="job-state"
        value={state}
        onChange={(event) => {
          setPage(0);
          setState((event.target as HTMLSelectElement).value as JobState);
        }}
      >
        {STATES.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
      <ErrorMessage error={error} />
      <p aria-live="polite">{done}</p>
      <Scroll label="Jobs table" busy={loading}>
        <table>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last error</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((job) => (
              <tr key={job.id} data-job={job.id}>
                <td>{job.kind}</td>
                <td>{job.state}</td>
                <td>{job.attempts}</td>
                <td>{job.lastError ?? '—'}</td>
                <td>{new Date(job.updatedAt).toLocaleString()}</td>
                <td>
                  {job.state === 'DEAD' && (
                    <button
                      type="button"
                      class="secondary"
                      aria-busy={busyRow === job.id ? 'true' : undefined}
                      onClick={() => requeue(job)}
                      aria-label={`Requeue the ${job.kind} job`}
                    >
                      Requeue
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {rows.length === 0 && !loading && !error && <p>No {state} jobs.</p>}
      <Pager meta={meta} onPage={setPage} label="Jobs" />
    </>
  );
}
