import type { Area } from '../../platform/area.ts';
import { faxSlot } from '../../providers/fax/fax.ts';
import { faxAuditActions, faxErrors, faxEvents, faxFiles, faxPermissions } from './catalog.ts';
import { purgePatientFaxes } from './faxes.ts';
import routes from './routes.ts';
import {
  FAX_ATTEMPTS,
  FAX_BACKOFF,
  FETCH_FAX,
  faxSandboxOutcomes,
  receiveFax,
  reportFaxStatus,
  runFetchFaxDocument,
  runSendFax,
  SEND_FAX,
} from './send.ts';
import { unlinkPatientFaxes } from './store.ts';

export const area: Area = {
  name: 'faxes',
  routes,
  permissions: faxPermissions,
  errors: faxErrors,
  auditActions: faxAuditActions,
  events: faxEvents,
  files: faxFiles,
  providers: [faxSlot],
  patientData: {
    tables: ['faxes'],
    remove: (w, scope, patientId) => unlinkPatientFaxes(w.db, scope, patientId),
    purge: purgePatientFaxes,
  },
  channels: { FAX: { slot: faxSlot, receive: receiveFax, report: reportFaxStatus, sandbox: faxSandboxOutcomes } },
  jobs: {
    [SEND_FAX]: {
      description: "Hands a queued fax to its instance's fax provider; retried until taken, refused or out of attempts",
      run: runSendFax,
      maxAttempts: FAX_ATTEMPTS,
      backoff: FAX_BACKOFF,
    },
    [FETCH_FAX]: {
      description: "Fetches a received fax's document from the fax provider into the file store",
      run: runFetchFaxDocument,
      maxAttempts: FAX_ATTEMPTS,
      backoff: FAX_BACKOFF,
    },
  },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
