import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { useAction } from '../hooks.ts';
import { busyIf, ErrorMessage, Field, type PageProps, Section } from '../ui.tsx';

/**
 * A person's own second factor (docs/identity.md "MFA"): the password asked again (the MFA routes
 * sign the user in from their body, as a security setting should), a QR code to scan, its first code
 * to confirm, and the recovery codes shown once; or, with a code, the factor removed.
 */
export function SecondFactor({ session }: PageProps) {
  const { client, tenantName } = session;
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [enrolment, setEnrolment] = useState<{ secret: string; qrCode: string }>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const action = useAction();
  const signIn = () => ({ tenantName, username, password });

  const start = (event: Event) => {
    event.preventDefault();
    return action.run('start', async () => {
      setRecoveryCodes(undefined);
      setEnrolment(await unwrap(client.POST('/auth/mfa/totp', { body: signIn() })));
    });
  };
  const confirm = (event: Event) => {
    event.preventDefault();
    return action.run('confirm', async () => {
      const answer = await unwrap(client.POST('/auth/mfa/totp/confirm', { body: { ...signIn(), totpCode: code } }));
      setEnrolment(undefined);
      setCode('');
      setRecoveryCodes(answer.recoveryCodes);
      return 'The second factor is added: sign-ins ask for its code from now on';
    });
  };
  const remove = () =>
    action.run('remove', async () => {
      await unwrap(client.POST('/auth/mfa/totp/remove', { body: { ...signIn(), code } }));
      setCode('');
      return 'The second factor is removed: the password alone signs you in';
    });

  if (!session.person) {
    return (
      <>
        <h1>Second factor</h1>
        <p>An API client has no second factor: sign in as a person to add one.</p>
      </>
    );
  }
  return (
    <>
      <h1>Second factor</h1>
      <Section title="Your sign-in">
        <form onSubmit={start} aria-label="Add a second factor">
          <p>Enter your username and password again to change how you sign in.</p>
          <div class="grid">
            <Field label="Username" name="mfa-username" value={username} onInput={setUsername} required autocomplete="username" />
            <Field
              label="Password"
              name="mfa-password"
              type="password"
              value={password}
              onInput={setPassword}
              required
              autocomplete="current-password"
            />
          </div>
          <button type="submit" aria-busy={busyIf(action.busy === 'start')}>
            Add an authenticator
          </button>
        </form>
        <ErrorMessage error={action.error} />
        <p aria-live="polite">{action.done}</p>
      </Section>
      {enrolment && (
        <Section title="Scan, then enter its code">
          <img src={enrolment.qrCode} alt="QR code of your authenticator secret" width={200} height={200} />
          <p>
            Or type this secret into the app: <code>{enrolment.secret}</code>
          </p>
          <form onSubmit={confirm} aria-label="Confirm the authenticator">
            <Field label="Code" name="mfa-code" value={code} onInput={setCode} required autocomplete="one-time-code" />
            <button type="submit" aria-busy={busyIf(action.busy === 'confirm')}>
              Confirm
            </button>
          </form>
        </Section>
      )}
      {recoveryCodes && (
        <Section title="Your recovery codes">
          <p>Each signs you in once in place of a code. Keep them somewhere safe: they are not shown again.</p>
          <ul data-testid="recovery-codes">
            {recoveryCodes.map((recovery) => (
              <li key={recovery}>
                <code>{recovery}</code>
              </li>
            ))}
          </ul>
        </Section>
      )}
      {!enrolment && (
        <Section title="Remove your second factor">
          <Field
            label="A code or a recovery code"
            name="mfa-remove-code"
            value={code}
            onInput={setCode}
            autocomplete="one-time-code"
          />
          <button type="button" class="contrast" aria-busy={busyIf(action.busy === 'remove')} onClick={remove}>
            Remove the second factor
          </button>
        </Section>
      )}
    </>
  );
}
