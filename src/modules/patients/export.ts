import type { ExportSource } from '../../http/export.ts';
import { patientRelations } from './read.ts';
import { Patient } from './schemas.ts';
import { patientViews } from './views.ts';

/** Patients in the bulk export: each as GET /patients/{id} shows it (care team, programs, custom attributes). */
export const patientExport: ExportSource = {
  permission: 'PATIENT_EXPORT',
  summary: 'patients',
  item: Patient,
  table: 'patients',
  patientsOf: { column: 'id' },
  columns: (ctx) => patientRelations({ ...ctx.scope, instanceName: ctx.instance.name }, 'r'),
  view: (ctx, rows) => patientViews(ctx, rows),
};
