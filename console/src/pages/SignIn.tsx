import { useState } from 'preact/hooks';
import { beginSignIn } from '../oauth.ts';
import { baseUrl, type Session, signIn } from '../session.ts';
import { ErrorMessage, Field } from '../ui.tsx';

/**
 * A person signs in on the instance's sign-in page (oauth.ts: their password, their second factor
 * or their organization's identity provider), or an API client with its key and secret here. The
 * tokens stay in memory.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [kind, setKind] = useState<'user' | 'client'>('user');
  const [tenantName, setTenant] = useState('');
  const [instanceName, setInstance] = useState('sandbox');
  const [apiClient, setKey] = useState('');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // A person leaves for the sign-in page, and comes back signed in (main.tsx).
      if (kind === 'user') await beginSignIn(baseUrl, tenantName, instanceName);
      else onSignedIn(await signIn({ apiClient, secret }, tenantName, instanceName));
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
          <p>You sign in on the instance's sign-in page, with your password and your code, or your organization's account.</p>
        ) : (
          <>
            <Field label="API client key" name="apiClient" value={apiClient} onInput={setKey} required />
            <Field label="Secret" name="secret" type="password" value={secret} onInput={setSecret} required />
          </>
        )}
        <ErrorMessage error={error} />
        <button type="submit" aria-busy={busy ? 'true' : undefined} disabled={busy}>
          {busy ? 'Signing in…' : kind === 'user' ? 'Continue to sign in' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
