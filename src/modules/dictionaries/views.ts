import { v5 as uuidv5 } from 'uuid';
import { timezoneValues } from '../../formation/defaults.ts';
import type { DictionaryRecordRow } from './store.ts';

export interface DictionaryRecordView {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  fullValue: string;
  deleted: boolean;
  values: Record<string, unknown>;
}

export function recordView(row: DictionaryRecordRow): DictionaryRecordView {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    fullValue: row.full_value,
    deleted: row.deleted,
    values: row.values as Record<string, unknown>,
  };
}

/** 001 dictionary values response; `lastUpdatedAt` is the latest change, a soft delete included. */
export function valuesResponse(dictionaryName: string, rows: DictionaryRecordRow[], showDeleted: boolean) {
  const lastUpdatedAt = rows.reduce<Date | null>(
    (latest, row) => (latest && latest >= row.updated_at ? latest : row.updated_at),
    null,
  );
  return {
    dictionaryName,
    lastUpdatedAt,
    records: rows.filter((row) => showDeleted || !row.deleted).map(recordView),
  };
}

/** Fixed namespace of the timezone records' ids: a value always has the same id. */
const TIMEZONE_NAMESPACE = 'ffc1c572-1274-434b-89c0-7967aa87c783';
/** The timezone values never change; their timestamps are the epoch. */
const EPOCH = new Date(0);

/** 001: `timezone` lists the supported timezones and cannot be populated. */
export const timezoneRecords: DictionaryRecordView[] = timezoneValues.map((values) => ({
  id: uuidv5(values.value, TIMEZONE_NAMESPACE),
  createdAt: EPOCH,
  updatedAt: EPOCH,
  fullValue: values.value,
  deleted: false,
  values,
}));

export function timezoneResponse() {
  return { dictionaryName: 'timezone', lastUpdatedAt: EPOCH, records: timezoneRecords };
}
