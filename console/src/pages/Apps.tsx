import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { useAction, usePaged } from '../hooks.ts';
import { fieldError, type Session } from '../session.ts';
import { busyIf, ErrorMessage, Field, type PageProps, SecretOnce, Section, Table } from '../ui.tsx';

type ClientType = 'PUBLIC' | 'CONFIDENTIAL_SYMMETRIC' | 'CONFIDENTIAL_ASYMMETRIC';
interface AppRow {
  id: string;
  name: string;
  clientId: string;
  clientType: string;
  redirectUris: string[];
  scopes: string[];
  launchKinds: string[];
  launchUrl: string | null;
  enabled: boolean;
}

const KINDS: Record<string, string> = {
  PUBLIC: 'Public (a browser or phone app, PKCE)',
  CONFIDENTIAL_SYMMETRIC: 'Confidential, with a secret',
  CONFIDENTIAL_ASYMMETRIC: 'Confidential, with its keys',
};

/**
 * The tenant's SMART apps (docs/identity.md): the registered ones, one registered (a confidential
 * app's secret shown once), one disabled or enabled, one removed. An app with keys (asymmetric) is
 * registered through the API, which takes its JWK Set.
 */
export function Apps({ session }: PageProps) {
  const { client, tenantName } = session;
  const [shown, setShown] = useState<{ title: string; clientKey: string; secret: string }>();
  // A tenant registers a handful of apps: the API answers them all, one page.
  const list = usePaged(async () => {
    const rows = (await unwrap(client.GET('/{tenantName}/admin/apps', { params: { path: { tenantName } } }))).data as AppRow[];
    return { rows, meta: { page: 0, totalPages: 1, totalElements: rows.length } };
  }, [client, tenantName]);
  const action = useAction();

  const act = (row: AppRow, kind: 'toggle' | 'delete') =>
    action.run(`${row.id}:${kind}`, async () => {
      const path = { tenantName, appId: row.id };
      if (kind === 'delete') await unwrap(client.DELETE('/{tenantName}/admin/apps/{appId}', { params: { path } }));
      else await unwrap(client.PATCH('/{tenantName}/admin/apps/{appId}', { params: { path }, body: { enabled: !row.enabled } }));
      list.reload();
      return kind === 'delete' ? `${row.name} was removed` : `${row.name} is ${row.enabled ? 'disabled' : 'enabled'}`;
    });

  return (
    <>
      <h1>Apps</h1>
      {shown && (
        <SecretOnce
          {...shown}
          note="The app's client_id, and its secret, shown this once: it is kept sealed."
          onClose={() => setShown(undefined)}
        />
      )}
      <RegisterApp
        session={session}
        onRegistered={(made) => {
          if (made.clientSecret)
            setShown({ title: `${made.name} was registered`, clientKey: made.clientId, secret: made.clientSecret });
          list.reload();
        }}
      />
      <Section title="Registered apps">
        <ErrorMessage error={list.error ?? action.error} />
        <p aria-live="polite">{action.done}</p>
        <Table
          label="Apps"
          list={list}
          head={['Name', 'client_id', 'Kind', 'Scopes', 'Launch', 'State', 'Actions']}
          row={(row) => (
            <tr key={row.id} data-app={row.name}>
              <td>{row.name}</td>
              <td>
                <code>{row.clientId}</code>
              </td>
              <td>{KINDS[row.clientType] ?? row.clientType}</td>
              <td>{row.scopes.join(' ')}</td>
              <td>{row.launchKinds.join(', ')}</td>
              <td>{row.enabled ? 'Enabled' : 'Disabled'}</td>
              <td>
                <div class="actions">
                  <button
                    type="button"
                    class="secondary"
                    aria-busy={busyIf(action.busy === `${row.id}:toggle`)}
                    onClick={() => act(row, 'toggle')}
                    aria-label={`${row.enabled ? 'Disable' : 'Enable'} ${row.name}`}
                  >
                    {row.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <button
                    type="button"
                    class="contrast"
                    aria-busy={busyIf(action.busy === `${row.id}:delete`)}
                    onClick={() => act(row, 'delete')}
                    aria-label={`Remove ${row.name}`}
                  >
                    Remove
                  </button>
                </div>
              </td>
            </tr>
          )}
          empty="No apps are registered."
        />
      </Section>
    </>
  );
}

const lines = (text: string) =>
  text
    .split(/\s+/)
    .map((line) => line.trim())
    .filter(Boolean);

function RegisterApp({
  session,
  onRegistered,
}: {
  session: Session;
  onRegistered: (made: { name: string; clientId: string; clientSecret: string | null }) => void;
}) {
  const { client, tenantName } = session;
  const [name, setName] = useState('');
  const [clientType, setType] = useState<ClientType>('PUBLIC');
  const [redirects, setRedirects] = useState('');
  const [scopes, setScopes] = useState('openid fhirUser launch/patient patient/*.rs');
  const [ehr, setEhr] = useState(false);
  const [launchUrl, setLaunchUrl] = useState('');
  const action = useAction();
  const { fields } = action;

  const submit = (event: Event) => {
    event.preventDefault();
    return action.run('register', async () => {
      const made = await unwrap(
        client.POST('/{tenantName}/admin/apps', {
          params: { path: { tenantName } },
          body: {
            name,
            clientType,
            redirectUris: lines(redirects),
            scopes: lines(scopes),
            launchKinds: ehr ? ['STANDALONE', 'EHR'] : ['STANDALONE'],
            ...(launchUrl ? { launchUrl } : {}),
          },
        }),
      );
      setName('');
      setRedirects('');
      setLaunchUrl('');
      onRegistered(made);
      return `${made.name} was registered: its client_id is ${made.clientId}`;
    });
  };

  return (
    <Section title="Register an app">
      <form onSubmit={submit} aria-label="Register an app">
        <div class="grid">
          <Field label="Name" name="app-name" value={name} onInput={setName} error={fields.name} required />
          <div class="field">
            <label for="field-app-kind">Kind</label>
            <select
              id="field-app-kind"
              value={clientType}
              onChange={(event) => setType((event.target as HTMLSelectElement).value as ClientType)}
            >
              <option value="PUBLIC">{KINDS.PUBLIC}</option>
              <option value="CONFIDENTIAL_SYMMETRIC">{KINDS.CONFIDENTIAL_SYMMETRIC}</option>
            </select>
          </div>
        </div>
        <Field
          label="Redirect URIs"
          name="app-redirects"
          value={redirects}
          onInput={setRedirects}
          error={fieldError(fields, 'redirectUris')}
          hint="Exactly as the app sends them, separated by spaces: https, or http on localhost"
          required
        />
        <Field
          label="Scopes"
          name="app-scopes"
          value={scopes}
          onInput={setScopes}
          error={fieldError(fields, 'scopes')}
          hint="What the app may ask for, separated by spaces: user/*.rs, patient/*.rs, launch, launch/patient, openid, fhirUser, offline_access"
        />
        <label>
          <input type="checkbox" checked={ehr} onChange={() => setEhr(!ehr)} />
          Opened from a patient's page (EHR launch)
        </label>
        <Field
          label="Launch URL"
          name="app-launch-url"
          value={launchUrl}
          onInput={setLaunchUrl}
          error={fields.launchUrl}
          hint="Where the app starts when opened from a patient's page"
        />
        <ErrorMessage error={action.error} />
        <p aria-live="polite">{action.done}</p>
        <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
          Register app
        </button>
      </form>
    </Section>
  );
}
