import type { PatientData } from '../../events/work.ts';
import { forgetSandboxMessages } from '../../providers/sandbox.ts';

/**
 * The sandbox's outbox holds what was "sent": a purge removes the patient's messages (by
 * `patient_id`) and those to or from the patient's and their contacts' addresses (the message
 * areas remove those of their own records by reference). A delete leaves them: the outbox is a
 * test double of the vendors, which keep what they were sent.
 */
export const sandboxPatientData: PatientData = {
  tables: ['sandbox_messages'],
  mentions: { sandbox_messages: { by: 'from_address, to_address (a phone or email), reference (a message record)' } },
  purge: (w, scope, patient) => forgetSandboxMessages(w.db, scope, { patientId: patient.id, addresses: patient.addresses }),
};
