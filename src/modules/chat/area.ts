import type { Area } from '../../platform/area.ts';
import { chatAuditActions, chatErrors, chatEvents, chatFiles, chatPermissions } from './catalog.ts';
import { chatExport, messagingAppExport } from './export.ts';
import { fhirChatCommunication } from './fhir.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'chat',
  routes,
  permissions: chatPermissions,
  errors: chatErrors,
  auditActions: chatAuditActions,
  events: chatEvents,
  files: chatFiles,
  exports: { CHAT: chatExport, MESSAGING_APP: messagingAppExport },
  fhir: [fhirChatCommunication],
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['chat_messages', 'chat_archives'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
