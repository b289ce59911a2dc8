import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { usePaged } from '../hooks.ts';
import { fieldErrors } from '../session.ts';
import { busyIf, Field, type PageProps } from '../ui.tsx';
import { AccessError, AccessTable, accessRows } from './access-log/records.tsx';

const SIZE = 20;

interface Filters {
  patientId: string;
  actorId: string;
  operation: string;
  from: string;
  to: string;
}
const NONE: Filters = { patientId: '', actorId: '', operation: '', from: '', to: '' };

/** A `datetime-local` value, in the viewer's zone, as the instant the API takes. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** The tenant's access log (who saw which patient's data), newest first, filtered by patient, caller, route and time. */
export function AccessLog({ session }: PageProps) {
  const { client, tenantName } = session;
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const list = usePaged(
    async (page) => {
      const query = {
        page,
        size: SIZE,
        ...(filters.patientId ? { patientId: filters.patientId } : {}),
        ...(filters.actorId ? { actorId: filters.actorId } : {}),
        ...(filters.operation ? { operation: filters.operation } : {}),
        ...(filters.from ? { from: instant(filters.from) } : {}),
        ...(filters.to ? { to: instant(filters.to) } : {}),
      };
      return accessRows(await unwrap(client.GET('/{tenantName}/admin/access-log', { params: { path: { tenantName }, query } })));
    },
    [client, tenantName, filters],
  );
  const fields = fieldErrors(list.error);

  const set = (key: keyof Filters) => (value: string) => setDraft((current) => ({ ...current, [key]: value }));

  return (
    <>
      <h1>Access log</h1>
      <form
        aria-label="Access log filters"
        onSubmit={(event) => {
          event.preventDefault();
          list.setPage(0);
          setFilters({
            ...draft,
            patientId: draft.patientId.trim(),
            actorId: draft.actorId.trim(),
            operation: draft.operation.trim(),
          });
        }}
      >
        <div class="grid">
          <Field
            label="Patient id"
            name="patientId"
            value={draft.patientId}
            onInput={set('patientId')}
            error={fields.patientId}
          />
          <Field
            label="Caller id"
            name="actorId"
            value={draft.actorId}
            onInput={set('actorId')}
            error={fields.actorId}
            hint="A user's or an API client's id"
          />
          <Field
            label="Operation"
            name="operation"
            value={draft.operation}
            onInput={set('operation')}
            error={fields.operation}
            hint="GET /:tenantName/:instanceName/patients/:patientId, …"
          />
        </div>
        <div class="grid">
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
      <AccessError error={list.error} />
      <AccessTable label="Access log" list={list} withPatients alwaysPaged />
    </>
  );
}
