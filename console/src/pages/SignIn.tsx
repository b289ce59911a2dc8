import { useState } from 'preact/hooks';
import { type Session, signIn } from '../session.ts';
import { ErrorMessage, Field } from '../ui.tsx';

/** A user (tenant, username, password) or an API client (key and secret) signs in; the token stays in memory. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [kind, setKind] = useState<'user' | 'client'>('user');
  const [tenantName, setTenant] = useState('');
  const [instanceName, setInstance] = useState('sandbox');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [apiClient, setKey] = useState('');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const credentials = kind === 'user' ? { tenantName, username, password } : { apiClient, secret };
      onSignedIn(await signIn(credentials, tenantName, instanceName));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="container narrow">
      <h1>Sign in to Cairn</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <fieldset>
          <legend>Sign in as</legend>
          <label>
            <input type="radio" name="kind" checked={kind === 'user'} onChange={() => setKind('user')} />A user
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'client'} onChange={() => setKind('client')} />
            An API client
          </label>
        </fieldset>
        <Field label="Tenant" name="tenantName" value={tenantName} onInput={setTenant} required autocomplete="organization" />
        <Field
          label="Instance"
          name="instanceName"
          value={instanceName}
          onInput={setInstance}
          required
          hint="The environment whose records the pages show"
        />
        {kind === 'user' ? (
          <>
            <Field label="Username" name="username" value={username} onInput={setUsername} required autocomplete="username" />
            <Field
              label="Password"
              name="password"
              type="password"
              value={password}
              onInput={setPassword}
              required
              autocomplete="current-password"
            />
          </>
        ) : (
          <>
            <Field label="API client key" name="apiClient" value={apiClient} onInput={setKey} required />
            <Field label="Secret" name="secret" type="password" value={secret} onInput={setSecret} required />
          </>
        )}
        <ErrorMessage error={error} />
        <button type="submit" aria-busy={busy ? 'true' : undefined} disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
