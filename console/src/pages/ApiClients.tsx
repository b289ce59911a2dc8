import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { fromDataAndMeta, useAction, usePaged } from '../hooks.ts';
import { fieldError, type Session } from '../session.ts';
import { busyIf, ErrorMessage, Field, type PageProps, SearchBar, SecretOnce, Section, Table } from '../ui.tsx';

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
export function ApiClients({ session }: PageProps) {
  const { client, tenantName } = session;
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState<{ title: string; clientKey: string; secret: string }>();
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<ApiClientRow>(
        await unwrap(
          client.GET('/{tenantName}/admin/api-clients', {
            params: { path: { tenantName }, query: { page, size: SIZE, ...(filter ? { name: filter } : {}) } },
          }),
        ),
      ),
    [client, tenantName, filter],
  );
  const action = useAction();

  const act = (row: ApiClientRow, kind: 'rotate' | 'toggle') =>
    action.run(`${row.id}:${kind}`, async () => {
      const path = { tenantName, clientId: row.id };
      if (kind === 'rotate') {
        const rotated = await unwrap(client.POST('/{tenantName}/admin/api-clients/{clientId}/secret', { params: { path } }));
        setShown({ title: `New secret of ${row.name}`, clientKey: rotated.clientKey, secret: rotated.secret });
      } else {
        await unwrap(
          client.PATCH('/{tenantName}/admin/api-clients/{clientId}', { params: { path }, body: { enabled: !row.enabled } }),
        );
      }
      list.reload();
    });

  return (
    <>
      <h1>API clients</h1>
      {shown && <SecretOnce {...shown} onClose={() => setShown(undefined)} />}
      <CreateClient
        session={session}
        onCreated={(made) => {
          setShown({ title: `${made.name} was created`, clientKey: made.clientKey, secret: made.secret });
          list.reload();
        }}
      />
      <Section title="Clients">
        <SearchBar
          id="client-filter"
          label="Name contains"
          onSearch={(text) => {
            list.setPage(0);
            setFilter(text);
          }}
        />
        <ErrorMessage error={list.error ?? action.error} />
        <Table
          label="API clients"
          list={list}
          head={['Name', 'Key', 'Roles', 'State', 'Actions']}
          row={(row) => (
            <tr key={row.id} data-client={row.name}>
              <td>{row.name}</td>
              <td>
                <code>{row.clientKey}</code>
              </td>
              <td>{row.roles.map((role) => `${role.instanceName}: ${role.permissionName}`).join(', ') || '—'}</td>
              <td>{row.enabled ? 'Enabled' : 'Disabled'}</td>
              <td>
                <div class="actions">
                  <button
                    type="button"
                    class="secondary"
                    aria-busy={busyIf(action.busy === `${row.id}:rotate`)}
                    onClick={() => act(row, 'rotate')}
                    aria-label={`Rotate secret of ${row.name}`}
                  >
                    Rotate secret
                  </button>
                  <button
                    type="button"
                    class="contrast"
                    aria-busy={busyIf(action.busy === `${row.id}:toggle`)}
                    onClick={() => act(row, 'toggle')}
                    aria-label={`${row.enabled ? 'Disable' : 'Enable'} ${row.name}`}
                  >
                    {row.enabled ? 'Disable' : 'Enable'}
                  </button>
                </div>
              </td>
            </tr>
          )}
          empty="No API clients."
          alwaysPaged
        />
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
  const action = useAction();
  const { fields } = action;

  const submit = (event: Event) => {
    event.preventDefault();
    return action.run('create', async () => {
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
    });
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
        <ErrorMessage error={action.error} />
        <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
          Create client
        </button>
      </form>
    </Section>
  );
}
