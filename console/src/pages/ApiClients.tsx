import { unwrap } from '@cairn/client';
import { useEffect, useState } from 'preact/hooks';
import { fieldError, fieldErrors, type Session } from '../session.ts';
import { ErrorMessage, Field, type Meta, Pager, Scroll, SecretOnce, Section } from '../ui.tsx';

const SIZE = 10;

interface Role {
  permissionName: string;
  instanceName: string;
}
interface ApiClientRow {
  id: string;
  name: string;
  clientKey: string;
  enabled: boolean;
  roles: Role[];
}

/** The tenant's API clients: a page of them by name, one made (its secret shown once), a secret replaced, one disabled. */
export function ApiClients({ session }: { session: Session }) {
  const { client, tenantName } = session;
  const [page, setPage] = useState(0);
  const [filter, setFilter] = useState('');
  const [rows, setRows] = useState<ApiClientRow[]>([]);
  const [meta, setMeta] = useState<Meta>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [shown, setShown] = useState<{ title: string; clientKey: string; secret: string }>();
  const [busyRow, setBusyRow] = useState<string>();
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    setLoading(true);
    unwrap(
      client.GET('/{tenantName}/admin/api-clients', {
        params: { path: { tenantName }, query: { page, size: SIZE, ...(filter ? { name: filter } : {}) } },
      }),
    )
      .then((body) => {
        if (!live) return;
        setRows(body.data);
        setMeta({ page: body.metaInfo.page, totalPages: body.metaInfo.totalPages, totalElements: body.metaInfo.totalElements });
        setError(undefined);
      })
      .catch((caught) => live && setError(caught))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [client, tenantName, page, filter, version]);

  const act = async (row: ApiClientRow, action: 'rotate' | 'toggle') => {
    setBusyRow(`${row.id}:${action}`);
    setError(undefined);
    try {
      const path = { tenantName, clientId: row.id };
      if (action === 'rotate') {
        const rotated = await unwrap(client.POST('/{tenantName}/admin/api-clients/{clientId}/secret', { params: { path } }));
        setShown({ title: `New secret of ${row.name}`, clientKey: rotated.clientKey, secret: rotated.secret });
      } else {
        await unwrap(
          client.PATCH('/{tenantName}/admin/api-clients/{clientId}', { params: { path }, body: { enabled: !row.enabled } }),
        );
      }
      setVersion((v) => v + 1);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusyRow(undefined);
    }
  };

  return (
    <>
      <h1>API clients</h1>
      {shown && <SecretOnce {...shown} onClose={() => setShown(undefined)} />}
      <CreateClient
        session={session}
        onCreated={(made) => {
          setShown({ title: `${made.name} was created`, clientKey: made.clientKey, secret: made.secret });
          setVersion((v) => v + 1);
        }}
      />
      <Section title="Clients">
        <search>
          <form
            class="searchbar"
            onSubmit={(event) => {
              event.preventDefault();
              const input = (event.currentTarget as HTMLFormElement).elements.namedItem('client-filter') as HTMLInputElement;
              setPage(0);
              setFilter(input.value.trim());
            }}
          >
            <label for="client-filter">Name contains</label>
            <input id="client-filter" name="client-filter" type="search" />
            <button type="submit">Search</button>
          </form>
        </search>
        <ErrorMessage error={error} />
        <Scroll label="API clients table" busy={loading}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Roles</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-client={row.name}>
                  <td>{row.name}</td>
                  <td>
                    <code>{row.clientKey}</code>
                  </td>
                  <td>{row.roles.map((role) => `${role.instanceName}: ${role.permissionName}`).join(', ') || '—'}</td>
                  <td>{row.enabled ? 'Enabled' : 'Disabled'}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-busy={busyRow === `${row.id}:rotate` ? 'true' : undefined}
                      onClick={() => act(row, 'rotate')}
                      aria-label={`Rotate secret of ${row.name}`}
                    >
                      Rotate secret
                    </button>
                    <button
                      type="button"
                      class="contrast"
                      aria-busy={busyRow === `${row.id}:toggle` ? 'true' : undefined}
                      onClick={() => act(row, 'toggle')}
                      aria-label={`${row.enabled ? 'Disable' : 'Enable'} ${row.name}`}
                    >
                      {row.enabled ? 'Disable' : 'Enable'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
        <Pager meta={meta} onPage={setPage} label="API clients" />
      </Section>
    </>
  );
}

function CreateClient({
  session,
  onCreated,
}: {
  session: Session;
  onCreated: (made: { name: string; clientKey: string; secret: string }) => void;
}) {
  const { client, tenantName } = session;
  const [name, setName] = useState('');
  const [role, setRole] = useState('');
  const [instanceName, setInstance] = useState(session.instanceName);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const fields = fieldErrors(error);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const roles = role ? [{ permissionName: role, instanceName }] : [];
      const made = await unwrap(
        client.POST('/{tenantName}/admin/api-clients', {
          params: { path: { tenantName } },
          body: { name, roles },
        }),
      );
      setName('');
      setRole('');
      onCreated(made);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Create a client">
      <form onSubmit={submit} aria-label="Create a client">
        <div class="grid">
          <Field label="Name" name="name" value={name} onInput={setName} error={fields.name} />
          <Field
            label="Role"
            name="role"
            value={role}
            onInput={setRole}
            error={fieldError(fields, 'roles')}
            hint="Optional: a role of the instance"
          />
          <Field label="In instance" name="role-instance" value={instanceName} onInput={setInstance} />
        </div>
        <ErrorMessage error={error} />
        <button type="submit" aria-busy={busy ? 'true' : undefined} disabled={busy}>
          Create client
        </button>
      </form>
    </Section>
  );
}
