import { unwrap } from '@cairn/client';
import { useAction, useLoad } from '../../hooks.ts';
import { busyIf, ErrorMessage } from '../../ui.tsx';
import { PatientSection, type SectionProps } from './parts.tsx';

/**
 * SMART's EHR launch from the patient on screen (docs/identity.md "EHR launch"): each app registered
 * for it, opened in a new tab at its launch URL with `iss` and a `launch` value naming this patient,
 * good for five minutes and for this user only.
 */
export function OpenApp(props: SectionProps) {
  const { client, tenantName, instanceName } = props.session;
  const apps = useLoad(
    async () =>
      (await unwrap(client.GET('/{tenantName}/{instanceName}/apps', { params: { path: { tenantName, instanceName } } }))).data,
    [client],
  );
  const action = useAction();
  // Opened at once, before the launch is asked for: a tab opened after an await is a pop-up browsers block.
  const open = (app: { id: string; name: string }) => {
    const tab = window.open('', '_blank');
    return action.run(app.id, async () => {
      try {
        const launched = await unwrap(
          client.POST('/{tenantName}/{instanceName}/apps/{appId}/launch', {
            params: { path: { tenantName, instanceName, appId: app.id } },
            body: { patientId: props.patientId },
          }),
        );
        if (tab && launched.url) {
          tab.opener = null;
          tab.location.href = launched.url;
        } else tab?.close();
        return `${app.name} was opened in a new tab`;
      } catch (error) {
        tab?.close();
        throw error;
      }
    });
  };
  const list = apps.value ?? [];
  if (!apps.loading && !apps.error && list.length === 0) return null;
  return (
    <PatientSection title="Open in an app" busy={apps.loading} error={apps.error}>
      <ErrorMessage error={action.error} />
      <p class="actions">
        {list.map((app) => (
          <button
            type="button"
            class="secondary"
            key={app.id}
            aria-busy={busyIf(action.busy === app.id)}
            onClick={() => open(app)}
          >
            Open in {app.name}
          </button>
        ))}
      </p>
      <p aria-live="polite">{action.done}</p>
    </PatientSection>
  );
}
