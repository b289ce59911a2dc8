import { type Actor, recordAudit } from '../../events/audit.ts';
import { defaultDictionaries, readOnlyDictionaries } from '../../formation/defaults.ts';
import { type FieldDefinition, pickFieldValues, recordValueProblems } from '../../formation/field-types.ts';
import type { Services } from '../../http/services.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import {
  findDictionaryRecord,
  insertDictionaryRecords,
  listDictionaryRecords,
  lockDictionary,
  purgeDictionaryRecords,
  updateDictionaryRecord,
} from './store.ts';
import { type DictionaryRecordView, recordView, timezoneRecords, timezoneResponse, valuesResponse } from './views.ts';

/** Dictionary values: reads and writes checked against the dictionary's fields. */

/** A default dictionary or one of the current formation (internal ones too), or 404. */
async function dictionaryFields(services: Services, instance: Instance, name: string): Promise<FieldDefinition[]> {
  const formation = await services.currentFormation(instance);
  const dictionary = [...defaultDictionaries, ...(formation.dictionaries ?? [])].find((item) => item.name === name);
  if (!dictionary) throw new ApiError('DICTIONARY_NOT_FOUND', { dictionaryName: name });
  return dictionary.fields as FieldDefinition[];
}

/** The fields of a dictionary that may be written; 400 DICTIONARY_READ_ONLY for `timezone` (001). */
async function writableFields(services: Services, instance: Instance, name: string): Promise<FieldDefinition[]> {
  const fields = await dictionaryFields(services, instance, name);
  if (readOnlyDictionaries.has(name)) throw new ApiError('DICTIONARY_READ_ONLY', { dictionaryName: name });
  return fields;
}

function recordNotFound(name: string, id: string): ApiError {
  return new ApiError('DICTIONARY_RECORD_NOT_FOUND', { dictionaryName: name, dictionaryRecordId: id });
}

/** Each record's values, checked; every problem of every record is reported at once. */
function checkedRecords(fields: FieldDefinition[], records: Record<string, unknown>[]): Record<string, unknown>[] {
  const problems: FieldError[] = [];
  const picked = records.map((record, index) => {
    const values = pickFieldValues(fields, record);
    problems.push(...recordValueProblems(fields, values, { partial: false, path: `body.records.${index}.values` }));
    return values;
  });
  if (problems.length > 0) throw validationError(problems);
  return picked;
}

export async function getValues(services: Services, instance: Instance, name: string, showDeleted: boolean) {
  await dictionaryFields(services, instance, name);
  if (readOnlyDictionaries.has(name)) return timezoneResponse();
  return valuesResponse(name, await listDictionaryRecords(services.db, instance, name), showDeleted);
}

/** POST: adds records; answers the dictionary's values. PUT (`replace`): the old records go for good first. */
export async function writeValues(
  services: Services,
  instance: Instance,
  actor: Actor,
  name: string,
  records: Record<string, unknown>[],
  mode: 'add' | 'replace',
) {
  const values = checkedRecords(await writableFields(services, instance, name), records);
  const rows = await services.db.transaction().execute(async (trx) => {
    await lockDictionary(trx, instance, name);
    if (mode === 'replace') await purgeDictionaryRecords(trx, instance, name);
    await insertDictionaryRecords(trx, instance, name, values);
    await recordAudit(trx, actor, {
      action: mode === 'replace' ? 'DICTIONARY_VALUES_REPLACED' : 'DICTIONARY_VALUES_ADDED',
      entityType: 'DICTIONARY',
      entityId: name,
    });
    return listDictionaryRecords(trx, instance, name);
  });
  return valuesResponse(name, rows, false);
}

export async function getRecord(services: Services, instance: Instance, name: string, id: string): Promise<DictionaryRecordView> {
  await dictionaryFields(services, instance, name);
  if (readOnlyDictionaries.has(name)) {
    const record = timezoneRecords.find((item) => item.id === id.toLowerCase());
    if (!record) throw recordNotFound(name, id);
    return record;
  }
  const row = await findDictionaryRecord(services.db, instance, name, id);
  if (!row) throw recordNotFound(name, id);
  return recordView(row);
}

/** PUT: the record's values become the body's; whether it is deleted does not change. */
export async function putRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  name: string,
  id: string,
  body: Record<string, unknown>,
): Promise<DictionaryRecordView> {
  const fields = await writableFields(services, instance, name);
  return services.db.transaction().execute(async (trx) => {
    if (!(await findDictionaryRecord(trx, instance, name, id))) throw recordNotFound(name, id);
    const values = pickFieldValues(fields, body);
    const problems = recordValueProblems(fields, values, { partial: false, path: 'body.values' });
    if (problems.length > 0) throw validationError(problems);
    const row = await updateDictionaryRecord(trx, instance, name, id, { values });
    if (!row) throw recordNotFound(name, id);
    await recordAudit(trx, actor, {
      action: 'DICTIONARY_RECORD_UPDATED',
      entityType: 'DICTIONARY',
      entityId: id,
      changedFields: Object.keys(values),
    });
    return recordView(row);
  });
}

/** DECISIONS §8: a soft delete answering the record with `deleted: true`; deleting it again changes nothing. */
export async function deleteRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  name: string,
  id: string,
): Promise<DictionaryRecordView> {
  await writableFields(services, instance, name);
  return services.db.transaction().execute(async (trx) => {
    const existing = await findDictionaryRecord(trx, instance, name, id);
    if (!existing) throw recordNotFound(name, id);
    if (existing.deleted) return recordView(existing);
    const row = await updateDictionaryRecord(trx, instance, name, id, { deleted: true });
    if (!row) throw recordNotFound(name, id);
    await recordAudit(trx, actor, { action: 'DICTIONARY_RECORD_DELETED', entityType: 'DICTIONARY', entityId: id });
    return recordView(row);
  });
}
