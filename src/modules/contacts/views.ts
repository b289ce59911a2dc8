import type { Row } from '../../db/schema.ts';
import type { ContactView } from './schemas.ts';

export type ContactRow = Row<'contacts'>;

/** API field → column, for the fields a client writes (pdtRecordId has its own rules). */
export const contactColumns = {
  name: 'name',
  email: 'email',
  emailLabel: 'email_label',
  emailPdtFieldName: 'email_pdt_field_name',
  phone: 'phone',
  phoneLabel: 'phone_label',
  phonePdtFieldName: 'phone_pdt_field_name',
  secondaryPhone: 'secondary_phone',
  secondaryPhoneLabel: 'secondary_phone_label',
  secondaryPhonePdtFieldName: 'secondary_phone_pdt_field_name',
  relation: 'relation',
  active: 'active',
} as const;

export type ContactField = keyof typeof contactColumns;

export function contactView(row: ContactRow): ContactView {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
    name: row.name,
    email: row.email,
    emailLabel: row.email_label,
    emailPdtFieldName: row.email_pdt_field_name,
    phone: row.phone,
    phoneLabel: row.phone_label,
    phonePdtFieldName: row.phone_pdt_field_name,
    secondaryPhone: row.secondary_phone,
    secondaryPhoneLabel: row.secondary_phone_label,
    secondaryPhonePdtFieldName: row.secondary_phone_pdt_field_name,
    patientId: row.patient_id,
    pdtRecordId: row.pdt_record_id,
    relation: row.relation,
    active: row.active,
  };
}
