import type { PatientData } from '../../events/work.ts';
import { forgetSandboxMessages } from '../../providers/sandbox.ts';

/**
 * The sandbox's outbox holds what was "sent": a purge removes the messages to or from the patient's
 * and their contacts' addresses (the message areas remove those of their own records by reference).
 */
export const sandboxPatientData: PatientData = {
  tables: [],
  mentions: { sandbox_messages: { by: 'from_address, to_address (a phone or email), reference (a message record)' } },
  purge: (w, scope, patient) => forgetSandboxMessages(w.db, scope, { addresses: patient.addresses }),
};
