import type { Area } from '../../platform/area.ts';
import { emailSlot } from '../../providers/email/email.ts';
import { messagesOfPatient } from '../../records/messages.ts';
import { emailAuditActions, emailErrors, emailEvents, emailFiles, emailPermissions } from './catalog.ts';
import { emailExport } from './export.ts';
import { fhirEmailCommunication } from './fhir.ts';
import { receiveEmail } from './inbound.ts';
import routes from './routes.ts';
import { emailSandboxOutcomes, reportEmailStatus, runSendEmail, SEND_ATTEMPTS, SEND_BACKOFF, SEND_EMAIL } from './send.ts';

export const area: Area = {
  name: 'email',
  routes,
  permissions: emailPermissions,
  errors: emailErrors,
  auditActions: emailAuditActions,
  events: emailEvents,
  files: emailFiles,
  exports: { EMAIL: emailExport },
  fhir: [fhirEmailCommunication],
  providers: [emailSlot],
  channels: { EMAIL: { slot: emailSlot, receive: receiveEmail, report: reportEmailStatus, sandbox: emailSandboxOutcomes } },
  jobs: {
    [SEND_EMAIL]: {
      description: "Hands an email to its instance's email provider; retried until it is taken, refused or out of attempts",
      run: runSendEmail,
      maxAttempts: SEND_ATTEMPTS,
      backoff: SEND_BACKOFF,
    },
  },
  // Its rows of a patient cascade; a purge takes their sandbox copies too.
  patientData: { ...messagesOfPatient('emails'), tables: ['emails', 'email_drafts'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
