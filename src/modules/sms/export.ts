import type { ExportSource } from '../../http/export.ts';
import { smsViews } from './messages.ts';
import { SmsRecord } from './schemas.ts';

/** SMS in the bulk export: each as GET .../sms/{id} shows it (attachments with fresh links), unrecognised ones too. */
export const smsExport: ExportSource = {
  permission: 'SMS_EXPORT',
  summary: 'SMS',
  item: SmsRecord,
  table: 'sms_messages',
  patientsOf: { column: 'patient_id' },
  view: (ctx, rows, origin) => smsViews(ctx, rows, origin),
};
