import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { PatientScope, Scope } from '../db/scope.ts';
import type { Context } from '../http/context.ts';
import { type PatientRow, requirePatient } from './patient-scope.ts';

/**
 * Who a message is to or from (002): a patient, or one of the patient's contacts, whose id stands
 * where the patient's does in a path; and, for a message that comes in, the patient or contact an
 * address or number belongs to. Email, SMS, calls and the communication send share them.
 */

/** Who a message is about: the patient, or a contact of theirs (002). */
export interface Recipient {
  patient: PatientRow;
  contact: { id: string; name: string | null; email: string | null; phone: string | null } | null;
}

/** `{patientId}` read as 002 says: a patient's id, else a contact's (404 PATIENT_NOT_FOUND when neither). */
export async function recipientOf(ctx: Context, id: string): Promise<Recipient> {
  const contact = await findContactAnywhere(ctx.db, ctx.scope, id);
  const patient = await requirePatient(ctx, contact ? contact.patient_id : id);
  return {
    patient,
    contact: contact ? { id: contact.id, name: contact.name, email: contact.email, phone: contact.phone } : null,
  };
}

/** The patient's full name, as message records show it. */
export function patientName(patient: Pick<PatientRow, 'first_name' | 'last_name'>): string {
  return [patient.first_name, patient.last_name].filter(Boolean).join(' ');
}

/** Whom a list or a read is about: a patient, or one contact of the patient. */
export type RecipientScope = PatientScope & { contactId: string | null };

/** Where a recipient's messages are stored: its patient, and the contact when it is one. */
export function recipientScope(ctx: Context, recipient: Recipient): RecipientScope {
  return { ...ctx.scope, patientId: recipient.patient.id, contactId: recipient.contact?.id ?? null };
}

/** A contact of a patient in the instance, by its id (a draft about it names it in the patient's place). */
export function findContactAnywhere(db: Kysely<DB>, scope: Scope, id: string) {
  return db
    .selectFrom('contacts')
    .select(['id', 'patient_id', 'name', 'email', 'phone'])
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The names of a patient's care team, in their order, as a message record keeps them. */
export async function careTeamNames(db: Kysely<DB>, tenantId: string, patientId: string): Promise<string | null> {
  const rows = await db
    .selectFrom('patient_care_team as ct')
    .innerJoin('users as u', (join) => join.on('u.tenant_id', '=', tenantId).onRef('u.id', '=', 'ct.user_id'))
    .select(['u.first_name', 'u.last_name', 'u.username'])
    .where('ct.tenant_id', '=', tenantId)
    .where('ct.patient_id', '=', patientId)
    .orderBy('ct.position')
    .execute();
  const names = rows.map((row) => [row.first_name, row.last_name].filter(Boolean).join(' ') || row.username);
  return names.length > 0 ? names.join(', ') : null;
}

/**
 * Who an inbound message comes from: by an email address (any case) or a phone number (E.164), a
 * patient's primary or secondary one first, else a contact's (on the contact's patient); the
 * oldest when several share it. Each lookup goes through an index on the column it tests.
 */
export async function senderOf(db: Kysely<DB>, scope: Scope, from: { email: string } | { phone: string }) {
  const byEmail = 'email' in from;
  const value = byEmail ? from.email.toLowerCase() : from.phone;
  const matches = (column: 'email' | 'secondary_email' | 'phone' | 'secondary_phone') =>
    byEmail ? sql<SqlBool>`lower(${sql.ref(column)}) = ${value}` : sql<SqlBool>`${sql.ref(column)} = ${value}`;
  const fields = ['id', 'first_name', 'last_name', 'timezone'] as const;
  const patient = await db
    .selectFrom('patients')
    .select(fields)
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where((eb) =>
      eb.or(byEmail ? [matches('email'), matches('secondary_email')] : [matches('phone'), matches('secondary_phone')]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (patient) return { patient, contact: null };
  const contact = await db
    .selectFrom('contacts')
    .select(['id', 'patient_id', 'name'])
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where(matches(byEmail ? 'email' : 'phone'))
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!contact) return null;
  const owner = await db
    .selectFrom('patients')
    .select(fields)
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', contact.patient_id)
    .executeTakeFirst();
  return owner ? { patient: owner, contact: { id: contact.id, name: contact.name } } : null;
}
