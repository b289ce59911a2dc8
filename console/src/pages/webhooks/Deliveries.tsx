import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { fromDataAndMeta, useAction, useLoad, usePaged } from '../../hooks.ts';
import type { Session } from '../../session.ts';
import { busyIf, ErrorMessage, Table } from '../../ui.tsx';

const SIZE = 20;
const STATUSES = ['SENT', 'DELIVERED', 'FAILED'] as const;
type Status = (typeof STATUSES)[number];

interface AttemptRow {
  id: string;
  deliveryId: string;
  eventSubtype: string;
  recordId: string | null;
  status: Status;
  statusCode: string | null;
  httpStatus: number | null;
  error: string | null;
  attempt: number;
  latencyMs: number | null;
  createdAt: string;
  /** This attempt is its delivery's newest (only then may the delivery be sent again from it). */
  latest: boolean;
}

/** The receiver's answer (its status, then its name), or why there was none. */
const answerOf = (row: AttemptRow) =>
  row.httpStatus !== null ? (
    <>
      {row.httpStatus} <small class="id">{row.statusCode}</small>
    </>
  ) : (
    (row.error ?? '—')
  );

/**
 * One subscription's delivery attempts (audit-webhook of it), newest first, filtered by status; a
 * delivery whose newest attempt FAILED is sent again with Retry (202: queued).
 */
export function Deliveries({ session, webhookId, go }: { session: Session; webhookId: string; go: (to: string) => void }) {
  const { client, tenantName } = session;
  const { value: webhook, error: webhookError } = useLoad(
    () => unwrap(client.GET('/{tenantName}/admin/webhooks/{webhookId}', { params: { path: { tenantName, webhookId } } })),
    [client, tenantName, webhookId],
  );
  const [status, setStatus] = useState<'' | Status>('');
  /** The state each retried attempt's delivery was left in (by attempt id): a newer attempt may be retried again. */
  const [retried, setRetried] = useState<Record<string, string>>({});
  /** What the last retry did, said until the list is loaded again. */
  const [notice, setNotice] = useState('');

  const attempts = (query: { page?: number; size: number; status?: Status; deliveryId?: string }) =>
    unwrap(client.GET('/{tenantName}/admin/audit-webhook', { params: { path: { tenantName }, query: { webhookId, ...query } } }));

  const list = usePaged(
    async (page) => {
      const paged = fromDataAndMeta<Omit<AttemptRow, 'latest'>>(
        await attempts({ page, size: SIZE, ...(status ? { status } : {}) }),
      );
      // Each delivery's newest attempt, which a filtered or later page may not hold: one row of each.
      const deliveries = [...new Set(paged.rows.map((row) => row.deliveryId))];
      const newest = new Map(
        await Promise.all(
          deliveries.map(async (deliveryId) => {
            const [first] = (await attempts({ size: 1, deliveryId })).data;
            return [deliveryId, first?.id] as const;
          }),
        ),
      );
      return { ...paged, rows: paged.rows.map((row) => ({ ...row, latest: newest.get(row.deliveryId) === row.id })) };
    },
    [client, tenantName, webhookId, status],
  );
  const action = useAction();

  const retry = (row: AttemptRow) =>
    action.run(row.id, async () => {
      const delivery = await unwrap(
        client.POST('/{tenantName}/admin/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
          params: { path: { tenantName, webhookId, deliveryId: row.deliveryId } },
        }),
      );
      setRetried((current) => ({ ...current, [row.id]: delivery.state }));
      setNotice(`The ${row.eventSubtype} delivery is queued to be sent again (${delivery.state})`);
    });

  return (
    <>
      <a
        class="back"
        href="/console/webhooks"
        onClick={(event) => {
          event.preventDefault();
          go('webhooks');
        }}
      >
        ← All webhooks
      </a>
      <h1>Deliveries{webhook ? ` of ${webhook.name}` : ''}</h1>
      <ErrorMessage error={webhookError} />
      {webhook && (
        <p>
          To <code class="id">{webhook.url}</code>
        </p>
      )}
      <div class="toolbar">
        <div class="field">
          <label for="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={status}
            onChange={(event) => {
              list.setPage(0);
              setNotice('');
              setStatus((event.target as HTMLSelectElement).value as '' | Status);
            }}
          >
            <option value="">Any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          class="secondary"
          aria-busy={busyIf(list.loading)}
          onClick={() => {
            setNotice('');
            list.reload();
          }}
        >
          Refresh
        </button>
      </div>
      <ErrorMessage error={list.error ?? action.error} />
      <p aria-live="polite">{notice}</p>
      <Table
        label="Delivery attempts"
        list={list}
        head={['When', 'Event', 'Status', 'Answer', 'Attempt', 'Latency', 'Actions']}
        row={(row) => {
          const when = new Date(row.createdAt).toLocaleString();
          const queued = retried[row.id];
          return (
            <tr key={row.id} data-attempt={row.id} data-delivery={row.deliveryId} data-status={row.status}>
              <td>{when}</td>
              <td>
                {row.eventSubtype}
                {row.recordId && <small class="id">{row.recordId}</small>}
              </td>
              <td>{row.status}</td>
              <td>{answerOf(row)}</td>
              <td>{row.attempt}</td>
              <td>{row.latencyMs === null ? '—' : `${row.latencyMs} ms`}</td>
              <td>
                {row.latest &&
                  row.status === 'FAILED' &&
                  (queued ? (
                    <span data-testid="retried">Queued again ({queued})</span>
                  ) : (
                    <button
                      type="button"
                      class="secondary"
                      aria-busy={busyIf(action.busy === row.id)}
                      disabled={action.busy === row.id}
                      onClick={() => retry(row)}
                      aria-label={`Retry the ${row.eventSubtype} delivery (attempt ${row.attempt}, ${when})`}
                    >
                      Retry
                    </button>
                  ))}
              </td>
            </tr>
          );
        }}
        empty={<>No {status ? `${status} ` : ''}delivery attempts.</>}
        alwaysPaged
      />
    </>
  );
}
