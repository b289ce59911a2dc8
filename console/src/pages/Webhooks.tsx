import { CairnError, unwrap } from '@cairn/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fromDataAndMeta, useAction, usePaged } from '../hooks.ts';
import { fieldError, type Session } from '../session.ts';
import { busyIf, ErrorMessage, Field, type PageProps, SecretOnce, Section, Table } from '../ui.tsx';
import { Deliveries } from './webhooks/Deliveries.tsx';
import './webhooks.css';

const SIZE = 10;

export interface WebhookRow {
  id: string;
  name: string;
  title: string | null;
  url: string;
  instances: string[];
  eventEntities: string[];
  eventSubtypes: string[];
  source: 'API' | 'FORMATION';
}

type SourceFilter = '' | 'API' | 'FORMATION';

/** Comma-separated names as the API's list (empty: all). */
const names = (text: string) =>
  text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
const listed = (values: readonly string[]) => (values.length ? values.join(', ') : 'all');

/**
 * The tenant's webhook subscriptions (`webhooks`): a page of them, one made (its signing secret
 * shown once), a secret replaced, one deleted after a confirmation; `webhooks/<id>` is one
 * subscription's delivery attempts, a failed delivery sent again.
 */
export function Webhooks({ session, subpath, go }: PageProps) {
  return (
    <div class="webhooks">
      {subpath ? (
        <Deliveries key={subpath} session={session} webhookId={subpath} go={go} />
      ) : (
        <Subscriptions session={session} go={go} />
      )}
    </div>
  );
}

function Subscriptions({ session, go }: { session: Session; go: (to: string) => void }) {
  const { client, tenantName } = session;
  const [source, setSource] = useState<SourceFilter>('');
  const [shown, setShown] = useState<{ title: string; secret: string }>();
  const [confirming, setConfirming] = useState<string>();
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<WebhookRow>(
        await unwrap(
          client.GET('/{tenantName}/admin/webhooks', {
            params: { path: { tenantName }, query: { page, size: SIZE, ...(source ? { source } : {}) } },
          }),
        ),
      ),
    [client, tenantName, source],
  );
  const action = useAction();

  const rotate = (row: WebhookRow) =>
    action.run(`${row.id}:rotate`, async () => {
      const rotated = await unwrap(
        client.POST('/{tenantName}/admin/webhooks/{webhookId}/secret', { params: { path: { tenantName, webhookId: row.id } } }),
      );
      setShown({ title: `New signing secret of ${row.name}`, secret: rotated.secret });
    });

  const remove = (row: WebhookRow) =>
    action.run(`${row.id}:delete`, async () => {
      await unwrap(
        client.DELETE('/{tenantName}/admin/webhooks/{webhookId}', { params: { path: { tenantName, webhookId: row.id } } }),
      );
      setConfirming(undefined);
      list.reload();
      return `${row.name} was deleted`;
    });

  return (
    <>
      <h1>Webhooks</h1>
      {shown && (
        <SecretOnce
          {...shown}
          note={
            <>
              The signing secret is shown this once: keep it to verify the <code>webhook-signature</code> header of each delivery.
            </>
          }
          onClose={() => setShown(undefined)}
        />
      )}
      <CreateWebhook
        session={session}
        onCreated={(made) => {
          setShown({ title: `${made.name} was created`, secret: made.secret });
          list.reload();
        }}
      />
      <Section title="Subscriptions">
        <div class="field filter">
          <label for="webhook-source">Source</label>
          <select
            id="webhook-source"
            value={source}
            onChange={(event) => {
              list.setPage(0);
              setSource((event.target as HTMLSelectElement).value as SourceFilter);
            }}
          >
            <option value="">Any</option>
            <option value="API">API (made here)</option>
            <option value="FORMATION">Formation (declared there)</option>
          </select>
        </div>
        <ErrorMessage error={list.error ?? action.error} />
        <p aria-live="polite">{action.done}</p>
        <Table
          label="Webhooks"
          list={list}
          head={['Name', 'URL', 'Filters', 'Source', 'Actions']}
          row={(row) => (
            <tr key={row.id} data-webhook={row.name}>
              <td>
                {row.name}
                {row.title && <small class="id">{row.title}</small>}
              </td>
              <td class="url">
                <code class="id">{row.url}</code>
              </td>
              <td>
                <small>
                  Instances: {listed(row.instances)}
                  <br />
                  Entities: {listed(row.eventEntities)}
                  <br />
                  Subtypes: {listed(row.eventSubtypes)}
                </small>
              </td>
              <td>{row.source}</td>
              <td>
                <div class="row-actions">
                  <a
                    href={`/console/webhooks/${row.id}`}
                    aria-label={`Deliveries of ${row.name}`}
                    onClick={(event) => {
                      event.preventDefault();
                      go(`webhooks/${row.id}`);
                    }}
                  >
                    Deliveries
                  </a>
                  <button
                    type="button"
                    class="secondary"
                    aria-busy={busyIf(action.busy === `${row.id}:rotate`)}
                    onClick={() => rotate(row)}
                    aria-label={`Rotate secret of ${row.name}`}
                  >
                    Rotate secret
                  </button>
                  {row.source === 'API' &&
                    (confirming === row.id ? (
                      <ConfirmDelete
                        name={row.name}
                        busy={action.busy === `${row.id}:delete`}
                        onConfirm={() => remove(row)}
                        onCancel={() => setConfirming(undefined)}
                      />
                    ) : (
                      <button
                        type="button"
                        class="contrast"
                        onClick={() => setConfirming(row.id)}
                        aria-label={`Delete ${row.name}`}
                      >
                        Delete
                      </button>
                    ))}
                </div>
              </td>
            </tr>
          )}
          empty="No webhooks."
          alwaysPaged
        />
      </Section>
    </>
  );
}

/** The second step of a delete: a question, its confirming button focused, and a way back. */
function ConfirmDelete({
  name,
  busy,
  onConfirm,
  onCancel,
}: {
  name: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <>
      <span class="confirm">Delete {name}? Nothing more is sent to it.</span>
      <button
        ref={confirm}
        type="button"
        class="contrast"
        aria-busy={busyIf(busy)}
        disabled={busy}
        onClick={onConfirm}
        aria-label={`Confirm deleting ${name}`}
      >
        Confirm delete
      </button>
      <button type="button" class="secondary outline" onClick={onCancel} aria-label={`Keep ${name}`}>
        Cancel
      </button>
    </>
  );
}

function CreateWebhook({
  session,
  onCreated,
}: {
  session: Session;
  onCreated: (made: { name: string; secret: string }) => void;
}) {
  const { client, tenantName } = session;
  const [name, setName] = useState('');
  const [title, setTitle] = useState('');
  const [url, setUrl] = useState('');
  const [entities, setEntities] = useState('');
  const [subtypes, setSubtypes] = useState('');
  const [instances, setInstances] = useState('');
  const action = useAction();
  const { fields } = action;
  // A URL Cairn may not post to is refused as such, not as a field's VALIDATION_ERROR: it is the URL's error all the same.
  const urlRefused =
    action.error instanceof CairnError && action.error.errorCode === 'WEBHOOK_URL_NOT_ALLOWED'
      ? `Cairn may not post there (${String(action.error.details.reason ?? 'not allowed')})`
      : undefined;

  const submit = (event: Event) => {
    event.preventDefault();
    return action.run('create', async () => {
      const made = await unwrap(
        client.POST('/{tenantName}/admin/webhooks', {
          params: { path: { tenantName } },
          body: {
            name,
            ...(title.trim() ? { title: title.trim() } : {}),
            url: url.trim(),
            instances: names(instances),
            eventEntities: names(entities),
            eventSubtypes: names(subtypes),
          },
        }),
      );
      for (const clear of [setName, setTitle, setUrl, setEntities, setSubtypes, setInstances]) clear('');
      onCreated(made);
    });
  };

  return (
    <Section title="Create a webhook">
      <form onSubmit={submit} aria-label="Create a webhook">
        <div class="grid">
          <Field label="Name" name="name" value={name} onInput={setName} error={fields.name} />
          <Field label="Title" name="title" value={title} onInput={setTitle} error={fields.title} hint="Optional" />
        </div>
        <Field
          label="URL"
          name="url"
          value={url}
          onInput={setUrl}
          error={fields.url ?? urlRefused}
          hint="http(s); events are POSTed to it, signed"
        />
        <div class="grid">
          <Field
            label="Entities"
            name="eventEntities"
            value={entities}
            onInput={setEntities}
            error={fieldError(fields, 'eventEntities')}
            hint="Comma-separated (PATIENT, TASK); empty: all"
          />
          <Field
            label="Subtypes"
            name="eventSubtypes"
            value={subtypes}
            onInput={setSubtypes}
            error={fieldError(fields, 'eventSubtypes')}
            hint="Comma-separated (TASK_STATUS_CHANGED); empty: all"
          />
          <Field
            label="Instances"
            name="instances"
            value={instances}
            onInput={setInstances}
            error={fieldError(fields, 'instances')}
            hint="Comma-separated; empty: all"
          />
        </div>
        <ErrorMessage error={urlRefused ? undefined : action.error} />
        <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
          Create webhook
        </button>
      </form>
    </Section>
  );
}
