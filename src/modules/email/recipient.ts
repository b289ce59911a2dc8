import type { Context } from '../../http/context.ts';
import { type PatientRow, requirePatient } from '../../records/patient-scope.ts';
import { findContactAnywhere } from './store.ts';

/** Who a draft or an email is about: the patient, or a contact of theirs (002). */
export interface Recipient {
  patient: PatientRow;
  contact: { id: string; name: string | null; email: string | null } | null;
}

/** `{patientId}` read as 002 says: a patient's id, else a contact's (404 PATIENT_NOT_FOUND when neither). */
export async function recipientOf(ctx: Context, id: string): Promise<Recipient> {
  const contact = await findContactAnywhere(ctx.db, ctx.scope, id);
  const patient = await requirePatient(ctx, contact ? contact.patient_id : id);
  return { patient, contact: contact ? { id: contact.id, name: contact.name, email: contact.email } : null };
}

/** The patient's full name, as message records show it. */
export function patientName(patient: Pick<PatientRow, 'first_name' | 'last_name'>): string {
  return [patient.first_name, patient.last_name].filter(Boolean).join(' ');
}

/** Where a recipient's emails and drafts are stored: its patient, and the contact when it is one. */
export function recipientScope(ctx: Context, recipient: Recipient) {
  return { ...ctx.scope, patientId: recipient.patient.id, contactId: recipient.contact?.id ?? null };
}
