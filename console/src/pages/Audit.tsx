import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { fromDataAndMeta, usePaged } from '../hooks.ts';
import { fieldErrors } from '../session.ts';
import { busyIf, ErrorMessage, Field, type PageProps, Table } from '../ui.tsx';

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
export function Audit({ session }: PageProps) {
  const { client, tenantName } = session;
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const list = usePaged(
    async (page) => {
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
      return fromDataAndMeta<AuditRow>(
        await unwrap(client.GET('/{tenantName}/admin/audit-data', { params: { path: { tenantName }, query } })),
      );
    },
    [client, tenantName, filters],
  );
  const fields = fieldErrors(list.error);

  const set = (key: keyof Filters) => (value: string) => setDraft((current) => ({ ...current, [key]: value }));

  return (
    <>
      <h1>Audit log</h1>
      <form
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          list.setPage(0);
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
          <button type="submit" aria-busy={busyIf(list.loading)}>
            Filter
          </button>
          <button
            type="button"
            class="secondary outline"
            onClick={() => {
              setDraft(NONE);
              setFilters(NONE);
              list.setPage(0);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorMessage error={list.error} />
      <Table
        label="Audit log"
        list={list}
        head={['When', 'Action', 'Entity', 'Actor', 'Instance']}
        row={(row) => (
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
        )}
        empty="No audit entries."
        alwaysPaged
      />
    </>
  );
}
