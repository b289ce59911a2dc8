import type { Context } from '../../http/context.ts';
import { Records } from '../../records/handle.ts';
import type { FieldError } from '../../wire/errors.ts';
import { validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { insertDictionaryRecords, listDictionaryRecords, lockDictionary, purgeDictionaryRecords } from './store.ts';
import { type DictionaryRecordView, recordView, timezoneRecords, timezoneResponse, valuesResponse } from './views.ts';

/** Dictionary values through the records kernel: reads, and writes checked against the dictionary's fields. */

/** Each record's values, checked; every problem of every record is reported at once. */
function checkedRecords(records: Records<'DICTIONARY'>, bodies: Record<string, unknown>[]): Record<string, unknown>[] {
  const problems: FieldError[] = [];
  const picked = bodies.map((body, index) => {
    const checked = records.check(body, { path: `body.records.${index}.values` });
    problems.push(...checked.problems);
    return checked.values;
  });
  if (problems.length > 0) throw validationError(problems);
  return picked;
}

export async function getValues(ctx: Context, name: string, showDeleted: boolean) {
  const records = await Records.of(ctx, 'DICTIONARY', name);
  if (records.type.readOnly) return timezoneResponse();
  return valuesResponse(name, await listDictionaryRecords(ctx.db, ctx.scope, name), showDeleted);
}

/** POST: adds records; answers the dictionary's values. PUT (`replace`): the old records go for good first. */
export async function writeValues(ctx: Context, name: string, bodies: Record<string, unknown>[], mode: 'add' | 'replace') {
  const records = (await Records.of(ctx, 'DICTIONARY', name)).writable();
  const values = checkedRecords(records, bodies);
  const rows = await write(ctx, async (w) => {
    await lockDictionary(w.db, ctx.scope, name);
    if (mode === 'replace') await purgeDictionaryRecords(w.db, ctx.scope, name);
    await insertDictionaryRecords(w.db, ctx.scope, name, values, w.now);
    w.changed({
      action: mode === 'replace' ? 'DICTIONARY_VALUES_REPLACED' : 'DICTIONARY_VALUES_ADDED',
      entityType: 'DICTIONARY',
      entityId: name,
      about: { dictionaryName: name },
    });
    return listDictionaryRecords(w.db, ctx.scope, name);
  });
  return valuesResponse(name, rows, false);
}

export async function getRecord(ctx: Context, name: string, id: string): Promise<DictionaryRecordView> {
  const records = await Records.of(ctx, 'DICTIONARY', name);
  if (records.type.readOnly) {
    const record = timezoneRecords.find((item) => item.id === id.toLowerCase());
    if (!record) throw records.notFound(id);
    return record;
  }
  return recordView(await records.require(ctx.db, id));
}

/** PUT: the record's values become the body's; whether it is deleted does not change. */
export async function putRecord(ctx: Context, name: string, id: string, body: Record<string, unknown>) {
  const records = (await Records.of(ctx, 'DICTIONARY', name)).writable();
  return write(ctx, async (w) => {
    const existing = await records.require(w.db, id, { forUpdate: true });
    const values = records.values(body, { path: 'body.values' });
    return recordView(await records.replace(w, existing, values));
  });
}

/** DECISIONS §8: a soft delete answering the record with `deleted: true`; deleting it again changes nothing. */
export async function deleteRecord(ctx: Context, name: string, id: string): Promise<DictionaryRecordView> {
  const records = (await Records.of(ctx, 'DICTIONARY', name)).writable();
  return write(ctx, async (w) => {
    const existing = await records.require(w.db, id, { forUpdate: true });
    return recordView(existing.deleted ? existing : await records.remove(w, existing));
  });
}
