import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { fromDataAndMeta, useAction, usePaged } from '../hooks.ts';
import { busyIf, ErrorMessage, type PageProps, Table } from '../ui.tsx';

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
export function Jobs({ session }: PageProps) {
  const { client, tenantName } = session;
  const [state, setState] = useState<JobState>('DEAD');
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<JobRow>(
        await unwrap(
          client.GET('/{tenantName}/admin/jobs', { params: { path: { tenantName }, query: { page, size: SIZE, state } } }),
        ),
      ),
    [client, tenantName, state],
  );
  const action = useAction();

  const requeue = (job: JobRow) =>
    action.run(job.id, async () => {
      await unwrap(client.POST('/{tenantName}/admin/jobs/{jobId}/retry', { params: { path: { tenantName, jobId: job.id } } }));
      list.reload();
      return `The ${job.kind} job was requeued`;
    });

  return (
    <>
      <h1>Jobs</h1>
      <label for="job-state">State</label>
      <select
        id="job-state"
        value={state}
        onChange={(event) => {
          list.setPage(0);
          setState((event.target as HTMLSelectElement).value as JobState);
        }}
      >
        {STATES.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
      <ErrorMessage error={list.error ?? action.error} />
      <p aria-live="polite">{action.done}</p>
      <Table
        label="Jobs"
        list={list}
        head={['Kind', 'State', 'Attempts', 'Last error', 'Updated', 'Actions']}
        row={(job) => (
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
                  aria-busy={busyIf(action.busy === job.id)}
                  onClick={() => requeue(job)}
                  aria-label={`Requeue the ${job.kind} job`}
                >
                  Requeue
                </button>
              )}
            </td>
          </tr>
        )}
        empty={<>No {state} jobs.</>}
        alwaysPaged
      />
    </>
  );
}
