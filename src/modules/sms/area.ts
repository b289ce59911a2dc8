import type { Area } from '../../platform/area.ts';
import { smsSlot } from '../../providers/sms/sms.ts';
import { messagesOfPatient } from '../../records/messages.ts';
import { smsAuditActions, smsErrors, smsEvents, smsFiles, smsPermissions } from './catalog.ts';
import { smsExport } from './export.ts';
import { fhirSmsCommunication } from './fhir.ts';
import { receiveSms } from './inbound.ts';
import routes from './routes.ts';
import { reportSmsStatus, smsSandboxOutcomes } from './send.ts';

export const area: Area = {
  name: 'sms',
  routes,
  permissions: smsPermissions,
  errors: smsErrors,
  auditActions: smsAuditActions,
  events: smsEvents,
  files: smsFiles,
  exports: { SMS: smsExport },
  fhir: [fhirSmsCommunication],
  providers: [smsSlot],
  channels: { SMS: { slot: smsSlot, receive: receiveSms, report: reportSmsStatus, sandbox: smsSandboxOutcomes } },
  // Its rows of a patient cascade; a purge takes their sandbox copies too.
  patientData: messagesOfPatient('sms_messages'),
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
