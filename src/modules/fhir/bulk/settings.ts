import { Type } from 'typebox';
import { settingsSection } from '../../../config.ts';

/** The FHIR bulk export's settings (docs/fhir-bulk-export.md): how big its files get, how long they are kept. */
export const bulkExportSettings = settingsSection(
  'FHIR bulk export',
  Type.Object({
    CAIRN_FHIR_EXPORT_FILE_RESOURCES: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 10_000,
      description:
        'Resources in one NDJSON file of a FHIR $export at most: a file names the patients it holds in the access log when downloaded, so it stays a few hundred kilobytes of ids.',
    }),
    CAIRN_FHIR_EXPORT_FILE_BYTES: Type.Integer({
      minimum: 1,
      default: 64 * 1024 * 1024,
      description:
        'Bytes in one NDJSON file of a FHIR $export before the next file begins (the last resource may pass it): a failed file is redone from its start, so files stay quick to redo.',
    }),
    CAIRN_FHIR_EXPORT_RETENTION_HOURS: Type.Integer({
      minimum: 1,
      maximum: 24 * 30,
      default: 24,
      description:
        "Hours a FHIR $export's files are kept after it completes (or after its last progress), then removed with the export; its status then answers 404.",
    }),
    CAIRN_FHIR_EXPORT_MAX_RUNNING: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 3,
      description:
        'FHIR $exports one caller may have in progress in an instance; one more is 429 with Retry-After (Bulk Data 2.0) until one ends or is cancelled.',
    }),
    // The export area's variable: the same border holds for a FHIR export's transactionTime.
    CAIRN_EXPORT_SETTLE_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 1_000,
      description:
        "On PostgreSQL: the longest a write may take from taking its instant to reaching the database, plus how far nodes' clocks may differ.",
    }),
  }),
  (e) => ({
    fileResources: e.CAIRN_FHIR_EXPORT_FILE_RESOURCES,
    fileBytes: e.CAIRN_FHIR_EXPORT_FILE_BYTES,
    retentionMs: e.CAIRN_FHIR_EXPORT_RETENTION_HOURS * 60 * 60_000,
    maxRunning: e.CAIRN_FHIR_EXPORT_MAX_RUNNING,
    settleMs: e.CAIRN_EXPORT_SETTLE_MS,
  }),
);

export type BulkExportSettings = ReturnType<typeof bulkExportSettings.read>;
