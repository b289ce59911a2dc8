import { EVENTS_SIGNAL } from '../../jobs/kinds.ts';
import type { Area } from '../../platform/area.ts';
import { webhooksAuditActions, webhooksErrors, webhooksEvents, webhooksPermissions } from './catalog.ts';
import { DELIVERY_ATTEMPTS, DELIVERY_BACKOFF, deliver } from './deliver.ts';
import { webhooksSection } from './formation.ts';
import { webhookPatientData } from './patient-data.ts';
import { DELIVER, relayEvents } from './relay.ts';
import routes from './routes.ts';
import { webhookSettings } from './settings.ts';

export const area: Area = {
  name: 'webhooks',
  routes,
  formation: [webhooksSection],
  permissions: webhooksPermissions,
  errors: webhooksErrors,
  auditActions: webhooksAuditActions,
  events: webhooksEvents,
  settings: webhookSettings,
  jobs: {
    'webhooks.relay': {
      description: 'Turns new events of the outbox into deliveries to the subscriptions that want them, in commit order',
      run: (job, services) => relayEvents(services, job.payload.tenants as string[] | undefined),
      maxAttempts: 1,
      // Run for the tenants whose writes emitted events, 50 ms later so a busy node's writes share a
      // run: on the writing node, or on the job nodes its wake-up reaches; the job workers' sweep
      // runs it too for tenants with events waiting (a safety net). Never across every tenant.
      wakeOn: EVENTS_SIGNAL,
      wakeAfterMs: 50,
    },
    [DELIVER]: {
      description: 'One attempt to POST an event to a webhook, signed; retried until a 2xx or out of attempts',
      run: deliver,
      maxAttempts: DELIVERY_ATTEMPTS,
      backoff: DELIVERY_BACKOFF,
    },
  },
  patientData: webhookPatientData,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
