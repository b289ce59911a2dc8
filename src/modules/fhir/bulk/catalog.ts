import type { NamesOf } from '../../../wire/errors.ts';

/** What the FHIR bulk export adds to the shared catalogs (docs/fhir-bulk-export.md). */

export const bulkExportPermissions = {
  FHIR_EXPORT:
    'Start, follow, cancel and download FHIR bulk exports ($export); each resource type exported also needs its own read permission (PATIENT_READ for Patient)',
} as const;

export const bulkExportErrors = {
  FHIR_EXPORT_NOT_FOUND: { status: 404, componentType: 'FHIR', message: 'Export not found' },
  FHIR_EXPORT_FILE_NOT_FOUND: { status: 404, componentType: 'FHIR', message: 'Export file not found' },
  // Bulk Data 2.0: a status request for an export that failed answers 4XX or 5XX with an OperationOutcome.
  FHIR_EXPORT_FAILED: { status: 500, componentType: 'FHIR', message: 'The export failed' },
} as const;

declare module '../../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof bulkExportPermissions> {}
}
declare module '../../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof bulkExportErrors> {}
}
