import { CairnError } from '@cairn/client';
import { fromDataAndMeta, type Paged } from '../../hooks.ts';
import { ErrorMessage, Table, text, when } from '../../ui.tsx';

/** The fields of an access record the console shows (src/modules/access-log/store.ts has them all). */
export interface AccessRow {
  id: string;
  occurredAt: string;
  actorType: string;
  actorId: string | null;
  actorName: string | null;
  onBehalfOf: string | null;
  clientAddress: string | null;
  operation: string;
  resourceType: string;
  patientIds: string[];
  outcome: number;
}

/** Both access-log routes answer data and meta, newest first. */
export const accessRows = (body: Parameters<typeof fromDataAndMeta>[0]): Paged<AccessRow> => fromDataAndMeta<AccessRow>(body);

/** 2xx disclosed the data; 403 and 404 are attempts that saw nothing (DECISIONS "Access log"). */
export const outcomeOf = (status: number) =>
  status < 300 ? `${status} seen` : `${status} attempt${status === 403 ? ', refused' : status === 404 ? ', not found' : ''}`;

/** The caller's own read lacks ACCESS_LOG_READ: said as a plain sentence, not as a failure. */
const refused = (error: unknown) => error instanceof CairnError && error.status === 403;

/** The list's error: a refusal as a plain notice, anything else as the API's error. */
export function AccessError({ error }: { error: unknown }) {
  if (!refused(error)) return <ErrorMessage error={error} />;
  return (
    <p role="status" data-testid="not-allowed">
      You are not allowed to see the access log: it needs the ACCESS_LOG_READ permission.
    </p>
  );
}

interface AccessList {
  rows: AccessRow[];
  loading: boolean;
  error: unknown;
  meta?: Paged<AccessRow>['meta'] | undefined;
  setPage?: (page: number) => void;
}

/** One page of access records; `withPatients` adds the patients column (the tenant's log spans them). */
export function AccessTable({
  label,
  list,
  withPatients = false,
  alwaysPaged = false,
}: {
  label: string;
  list: AccessList;
  withPatients?: boolean;
  alwaysPaged?: boolean;
}) {
  // A refusal is said once, by AccessError; the table then has nothing to show.
  const shown = refused(list.error) ? { ...list, rows: [] } : list;
  const head = ['When', 'Who', 'Operation', 'Resource', ...(withPatients ? ['Patients'] : []), 'Outcome', 'Client address'];
  return (
    <Table
      label={label}
      list={shown}
      head={head}
      empty="No access records."
      alwaysPaged={alwaysPaged}
      row={(row) => (
        <tr key={row.id} data-access={row.id} data-actor={row.actorId ?? undefined} data-outcome={row.outcome}>
          <td>{when(row.occurredAt)}</td>
          <td>
            {row.actorName ?? row.actorId ?? '—'}
            <small class="id">
              {row.actorType}
              {row.onBehalfOf ? `, on behalf of ${row.onBehalfOf}` : ''}
            </small>
          </td>
          <td>
            <code>{row.operation}</code>
          </td>
          <td>{row.resourceType}</td>
          {withPatients && (
            <td>
              {row.patientIds.map((id) => (
                <small class="id" key={id}>
                  {id}
                </small>
              ))}
            </td>
          )}
          <td>{outcomeOf(row.outcome)}</td>
          <td>{text(row.clientAddress)}</td>
        </tr>
      )}
    />
  );
}
