import type { ExportSource } from '../../http/export.ts';
import { emailViews } from './emails.ts';
import { EmailRecord } from './schemas.ts';

/** Emails in the bulk export: each as GET .../emails/{id} shows it (attachments with fresh links), unrecognised ones too. */
export const emailExport: ExportSource = {
  permission: 'EMAIL_EXPORT',
  summary: 'emails',
  item: EmailRecord,
  table: 'emails',
  patientsOf: { column: 'patient_id' },
  view: (ctx, rows, origin) => emailViews(ctx, rows, origin),
};
