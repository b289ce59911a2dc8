import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { fromDataAndMeta, useAction, usePaged } from '../hooks.ts';
import { fieldError, type Session } from '../session.ts';
import { busyIf, ErrorMessage, Field, type PageProps, SearchBar, Section, Table } from '../ui.tsx';

const SIZE = 10;

interface Grant {
  permissionName: string;
  instanceName: string;
}
interface UserRow {
  id: string;
  username: string;
  email: string;
  firstName?: string;
  lastName?: string;
  enabled: boolean;
  roles: Grant[];
}

/** The tenant's users: searched and paged, one created, the roles of one edited per instance. */
export function Users({ session }: PageProps) {
  const { client, tenantName } = session;
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<UserRow>();
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<UserRow>(
        await unwrap(
          client.GET('/{tenantName}/admin/users', {
            params: { path: { tenantName }, query: { page, size: SIZE, ...(search ? { search } : {}) } },
          }),
        ),
      ),
    [client, tenantName, search],
  );

  return (
    <>
      <h1>Users</h1>
      <CreateUser session={session} onCreated={list.reload} />
      {editing && (
        <EditRoles
          session={session}
          user={editing}
          onDone={(saved) => {
            setEditing(undefined);
            if (saved) list.reload();
          }}
        />
      )}
      <Section title="All users">
        <SearchBar
          id="user-search"
          label="Username, email or name contains"
          onSearch={(text) => {
            list.setPage(0);
            setSearch(text);
          }}
        />
        <ErrorMessage error={list.error} />
        <Table
          label="Users"
          list={list}
          head={['Username', 'Name', 'Email', 'Roles', 'Actions']}
          row={(row) => (
            <tr key={row.id} data-user={row.username}>
              <td>{row.username}</td>
              <td>{[row.firstName, row.lastName].filter(Boolean).join(' ') || '—'}</td>
              <td>{row.email}</td>
              <td>{row.roles.map((role) => `${role.instanceName}: ${role.permissionName}`).join(', ') || '—'}</td>
              <td>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setEditing(row)}
                  aria-label={`Edit roles of ${row.username}`}
                >
                  Edit roles
                </button>
              </td>
            </tr>
          )}
          empty="No users."
          alwaysPaged
        />
      </Section>
    </>
  );
}

function CreateUser({ session, onCreated }: { session: Session; onCreated: () => void }) {
  const { client, tenantName } = session;
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [firstName, setFirst] = useState('');
  const [lastName, setLast] = useState('');
  const [role, setRole] = useState('');
  const action = useAction();
  const { fields } = action;

  const submit = (event: Event) => {
    event.preventDefault();
    return action.run('create', async () => {
      const body = {
        username,
        email,
        ...(firstName ? { firstName } : {}),
        ...(lastName ? { lastName } : {}),
        ...(role ? { roles: [{ permissionName: role, instanceName: session.instanceName }] } : {}),
      };
      const made = await unwrap(client.POST('/{tenantName}/admin/users', { params: { path: { tenantName } }, body }));
      setUsername('');
      setEmail('');
      setFirst('');
      setLast('');
      setRole('');
      onCreated();
      return `${made.username} was created`;
    });
  };

  return (
    <Section title="Create a user">
      <form onSubmit={submit} aria-label="Create a user">
        <div class="grid">
          <Field label="Username" name="username" value={username} onInput={setUsername} error={fields.username} />
          <Field label="Email" name="email" value={email} onInput={setEmail} error={fields.email} />
        </div>
        <div class="grid">
          <Field label="First name" name="firstName" value={firstName} onInput={setFirst} error={fields.firstName} />
          <Field label="Last name" name="lastName" value={lastName} onInput={setLast} error={fields.lastName} />
          <Field
            label={`Role in ${session.instanceName}`}
            name="user-role"
            value={role}
            onInput={setRole}
            error={fieldError(fields, 'roles')}
            hint="Optional"
          />
        </div>
        <ErrorMessage error={action.error} />
        <p aria-live="polite">{action.done}</p>
        <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
          Create user
        </button>
      </form>
    </Section>
  );
}

/** The user's roles, one line per role and instance; saving replaces the whole list (PATCH roles). */
function EditRoles({ session, user, onDone }: { session: Session; user: UserRow; onDone: (saved: boolean) => void }) {
  const { client, tenantName } = session;
  const [roles, setRoles] = useState<Grant[]>(
    user.roles.map(({ permissionName, instanceName }) => ({ permissionName, instanceName })),
  );
  const action = useAction();
  const { fields } = action;

  const change = (index: number, key: keyof Grant, value: string) =>
    setRoles((current) => current.map((grant, i) => (i === index ? { ...grant, [key]: value } : grant)));

  const save = async (event: Event) => {
    event.preventDefault();
    const saved = await action.run('save', async () => {
      await unwrap(
        client.PATCH('/{tenantName}/admin/users/{userName}', {
          params: { path: { tenantName, userName: user.username } },
          body: { roles: roles.filter((grant) => grant.permissionName && grant.instanceName) },
        }),
      );
    });
    if (saved) onDone(true);
  };

  return (
    <article aria-labelledby="edit-roles-title">
      <h3 id="edit-roles-title">Roles of {user.username}</h3>
      <form onSubmit={save} aria-label={`Roles of ${user.username}`}>
        {roles.map((grant, index) => (
          <div class="grid" key={index}>
            <Field
              label={`Role ${index + 1}`}
              name={`grant-${index}-role`}
              value={grant.permissionName}
              onInput={(value) => change(index, 'permissionName', value)}
              error={fields[`roles.${index}.permissionName`] ?? fields[`roles/${index}/permissionName`]}
            />
            <Field
              label={`Instance of role ${index + 1}`}
              name={`grant-${index}-instance`}
              value={grant.instanceName}
              onInput={(value) => change(index, 'instanceName', value)}
              error={fields[`roles.${index}.instanceName`] ?? fields[`roles/${index}/instanceName`]}
            />
            <button
              type="button"
              class="secondary outline"
              onClick={() => setRoles((current) => current.filter((_, i) => i !== index))}
              aria-label={`Remove role ${index + 1}`}
            >
              Remove
            </button>
          </div>
        ))}
        <ErrorMessage error={action.error} />
        <div class="actions">
          <button
            type="button"
            class="secondary"
            onClick={() => setRoles((current) => [...current, { permissionName: '', instanceName: session.instanceName }])}
          >
            Add a role
          </button>
          <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
            Save roles
          </button>
          <button type="button" class="secondary outline" onClick={() => onDone(false)}>
            Cancel
          </button>
        </div>
      </form>
    </article>
  );
}
