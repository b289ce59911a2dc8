import type { ExportSource } from '../../http/export.ts';
import { AccessRecord, accessView } from './store.ts';

/**
 * The access log in the bulk export, under its own permission: the instance's records, oldest
 * first, each as the log's routes show it. A record never changes, so its instant is its place in
 * the walk; the walk reads the tenant's time index and keeps the instance's records.
 */
export const accessLogExport: ExportSource = {
  permission: 'ACCESS_LOG_EXPORT',
  summary: 'access log records',
  item: AccessRecord,
  table: 'access_log',
  updatedColumn: 'occurred_at',
  patientsOf: { none: 'access records hold ids and metadata, never patient data' },
  view: (_ctx, rows) => rows.map(accessView),
};
