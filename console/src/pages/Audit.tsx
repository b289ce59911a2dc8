import { unwrap } from '@cairn/client';
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, type Session } from '../session.ts';
import { ErrorMessage, Field, type Meta, Pager, Scroll } from '../ui.tsx';

const SIZE = 20;

interface AuditRow {
  id: string;
  occurredAt: string;
  instanceName: string | null;
  actorType: string;
  actorName: string | null;
  action: string;
  entityType: string;
  entityId: string | null;
}

interface Filters {
  action: string;
  entityType: string;
  entityId: string;
  actorType: '' | 'API_CLIENT' | 'USER' | 'SYSTEM';
  from: string;
  to: string;
}
const NONE: Filters = { action: '', entityType: '', entityId: '', actorType: '', from: '', to: '' };

/** A `datetime-local` value, in the viewer's zone, as the instant the API takes. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** The tenant's audit log, newest first, filtered by action, entity, actor kind and time. */
export function Audit({ session }: { session: Session }) {
  const { client, tenantName } = session;
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [page, setPage] = useState(0);
  const [rows, setRows] = useState<AuditRow[]>([]);
  const [meta, setMeta] = useState<Meta>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const fields = fieldErrors(error);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const query = {
      page,
      size: SIZE,
      ...(filters.action ? { action: filters.action } : {}),
      ...(filters.entityType ? { entityType: filters.entityType } : {}),
      ...(filters.entityId ? { entityId: filters.entityId } : {}),
      ...(filters.actorType ? { actorType: filters.actorType } : {}),
      ...(filters.from ? { from: instant(filters.from) } : {}),
      ...(filters.to ? { to: instant(filters.to) } : {}),
    };
    unwrap(client.GET('/{tenantName}/admin/audit-data', { params: { path: { tenantName }, query } }))
      .then((body) => {
        if (!live) return;
        setRows(body.data as AuditRow[]);
        setMeta({ page: body.metaInfo.page, totalPages: body.metaInfo.totalPages, totalElements: body.metaInfo.totalElements });
        setError(undefined);
      })
      .catch((caught) => live && setError(caught))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [client, tenantName, page, filters]);

  const set = (key: keyof Filters) => (value: string) => setDraft((current) => ({ ...current, [key]: value }));

  return (
    <>
      <h1>Audit log</h1>
      <form
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(0);
          setFilters({
            ...draft,
            action: draft.action.trim(),
            entityType: draft.entityType.trim(),
            entityId: draft.entityId.trim(),
          });
        }}
      >
        <div class="grid">
          <Field
            label="Action"
            name="action"
            value={draft.action}
            onInput={set('action')}
            error={fields.action}
            hint="USER_CREATED, …"
          />
          <Field
            label="Entity type"
            name="entityType"
            value={draft.entityType}
            onInput={set('entityType')}
            error={fields.entityType}
          />
          <Field label="Entity id" name="entityId" value={draft.entityId} onInput={set('entityId')} error={fields.entityId} />
        </div>
        <div class="grid">
          <div class="field">
            <label for="field-actorType">Actor</label>
            <select
              id="field-actorType"
              value={draft.actorType}
              onChange={(event) => set('actorType')((event.target as HTMLSelectElement).value)}
            >
              <option value="">Anyone</option>
              <option value="USER">Users</option>
              <option value="API_CLIENT">API clients</option>
              <option value="SYSTEM">The system</option>
            </select>
          </div>
          <Field
            label="From (your time)"
            name="from"
            type="datetime-local"
            value={draft.from}
            onInput={set('from')}
            error={fields.from}
          />
          <Field label="To (your time)" name="to" type="datetime-local" value={draft.to} onInput={set('to')} error={fields.to} />
        </div>
        <div class="actions">
          <button type="submit" aria-busy={loading ? 'true' : undefined}>
            Filter
          </button>
          <button
            type="button"
            class="secondary outline"
            onClick={() => {
              setDraft(NONE);
              setFilters(NONE);
              setPage(0);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorMessage error={error} />
      <Scroll label="Audit log table" busy={loading}>
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Entity</th>
              <th scope="col">Actor</th>
              <th scope="col">Instance</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-action={row.action}>
                <td>{new Date(row.occurredAt).toLocaleString()}</td>
                <td>{row.action}</td>
                <td>
                  {row.entityType}
                  {row.entityId ? <small class="id"> {row.entityId}</small> : null}
                </td>
                <td>{row.actorName ?? row.actorType}</td>
                <td>{row.instanceName ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <Pager meta={meta} onPage={setPage} label="Audit log" />
    </>
  );
}
