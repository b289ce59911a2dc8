import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type Actor, recordAudit } from '../../events/audit.ts';
import { type FieldDefinition, pickFieldValues, recordValueProblems } from '../../formation/field-types.ts';
import type { CdtDefinition } from '../../formation/schemas.ts';
import { pageObject, parseSort } from '../../http/pagination.ts';
import type { Services } from '../../http/services.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, badField, errorBody, type FieldError, validationError } from '../../wire/errors.ts';
import { readInstant, uuidPattern } from '../../wire/schemas.ts';
import { requirePatient } from '../patients/operations.ts';
import { filterConditions, selectedFields } from './query.ts';
import type { CdtBulkPatchBody, CdtListQueryInput } from './schemas.ts';
import {
  type CdtRecordView,
  type CdtValuesChange,
  cdtRecordView,
  deleteCdtRecord,
  findCdtRecord,
  findCdtRecords,
  firstCdtRecordId,
  insertCdtRecord,
  listCdtRecords,
  lockPatientForRecords,
  lockPatientType,
  sortableCdtFields,
  updateCdtRecordValues,
} from './store.ts';

/** CDT records of the formation's types: the rules the generic store leaves to its callers. */

interface CdtType {
  definition: CdtDefinition;
  fields: FieldDefinition[];
  fieldNames: string[];
}

/** The type as the current formation defines it, or 404 CDT_NOT_FOUND. */
async function currentType(services: Services, instance: Instance, cdtName: string): Promise<CdtType> {
  const formation = await services.currentFormation(instance);
  const definition = (formation.cdts ?? []).find((cdt) => cdt.name === cdtName);
  if (!definition) throw new ApiError('CDT_NOT_FOUND', { cdtName });
  const fields = definition.fields as FieldDefinition[];
  return { definition, fields, fieldNames: fields.map((field) => field.name) };
}

function recordNotFound(patientId: string, cdtName: string, id: string): ApiError {
  return new ApiError('DT_RECORD_NOT_FOUND', { patientId, cdtRecordId: id, cdtName });
}

/** A write in one transaction, with the patient held against deletion; 404 when there is none. */
function inPatientTransaction<T>(
  services: Services,
  instance: Instance,
  patientId: string,
  work: (trx: Kysely<DB>) => Promise<T>,
) {
  return services.db.transaction().execute(async (trx) => {
    if (!(await lockPatientForRecords(trx, instance, patientId))) throw new ApiError('PATIENT_NOT_FOUND', { patientId });
    return work(trx);
  });
}

function audit(action: 'CREATED' | 'UPDATED' | 'DELETED', id: string, patientId: string, changedFields?: string[]) {
  return {
    action: `CDT_RECORD_${action}`,
    entityType: 'CDT_RECORD',
    entityId: id,
    patientId,
    ...(changedFields ? { changedFields } : {}),
  };
}

export async function listRecords(
  services: Services,
  instance: Instance,
  patientId: string,
  cdtName: string,
  query: CdtListQueryInput,
) {
  const type = await currentType(services, instance, cdtName);
  await requirePatient(services.db, instance, patientId);
  const only = selectedFields(type.fields, query.fields);
  const contains = filterConditions(type.fields, query.filters ?? []);
  const sort = parseSort(query.sort, sortableCdtFields(type.fieldNames));
  const paging = { page: query.page, size: query.size };
  const { rows, total } = await listCdtRecords(services.db, instance, patientId, cdtName, {
    paging,
    sort,
    contains,
    ...(query.dateStart ? { createdFrom: readInstant(query.dateStart) } : {}),
    ...(query.dateEnd ? { createdBefore: readInstant(query.dateEnd) } : {}),
  });
  const content = rows.map((row) => cdtRecordView(row, type.fieldNames, only));
  return { name: cdtName, data: pageObject(content, total, paging, sort.length > 0) };
}

export async function getRecord(services: Services, instance: Instance, patientId: string, cdtName: string, id: string) {
  const type = await currentType(services, instance, cdtName);
  await requirePatient(services.db, instance, patientId);
  const row = await findCdtRecord(services.db, instance, patientId, cdtName, id);
  if (!row) throw recordNotFound(patientId, cdtName, id);
  return cdtRecordView(row, type.fieldNames);
}

export async function createRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  cdtName: string,
  body: Record<string, unknown>,
): Promise<CdtRecordView> {
  const type = await currentType(services, instance, cdtName);
  return inPatientTransaction(services, instance, patientId, async (trx) => {
    const values = pickFieldValues(type.fields, body);
    const problems = recordValueProblems(type.fields, values, { partial: false, path: 'body' });
    if (problems.length > 0) throw validationError(problems);
    if (type.definition.type === 'SINGLE_RECORD') {
      // DECISIONS §6: a SINGLE_RECORD type holds at most one record per patient.
      await lockPatientType(trx, instance, patientId, cdtName);
      const existing = await firstCdtRecordId(trx, instance, patientId, cdtName);
      if (existing) {
        throw new ApiError(
          'DUPLICATE_VALUE',
          { patientId, cdtName, cdtRecordId: existing },
          `${cdtName} is a SINGLE_RECORD type and the patient already has a record of it`,
        );
      }
    }
    const row = await insertCdtRecord(trx, instance, patientId, cdtName, actor, {
      values,
      version: instance.currentFormationVersion,
    });
    await recordAudit(trx, actor, audit('CREATED', row.id, patientId, Object.keys(values)));
    return cdtRecordView(row, type.fieldNames);
  });
}

export async function updateRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  cdtName: string,
  id: string,
  body: Record<string, unknown>,
): Promise<CdtRecordView> {
  const type = await currentType(services, instance, cdtName);
  return inPatientTransaction(services, instance, patientId, async (trx) => {
    if (!(await findCdtRecord(trx, instance, patientId, cdtName, id))) throw recordNotFound(patientId, cdtName, id);
    const values = pickFieldValues(type.fields, body);
    const problems = recordValueProblems(type.fields, values, { partial: true, path: 'body' });
    if (problems.length > 0) throw validationError(problems);
    const [row] = await updateCdtRecordValues(trx, instance, patientId, cdtName, actor, instance.currentFormationVersion, [
      { id, values },
    ]);
    if (!row) throw recordNotFound(patientId, cdtName, id);
    await recordAudit(trx, actor, audit('UPDATED', id, patientId, Object.keys(values)));
    return cdtRecordView(row, type.fieldNames);
  });
}

export async function deleteRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  cdtName: string,
  id: string,
): Promise<void> {
  await currentType(services, instance, cdtName);
  await inPatientTransaction(services, instance, patientId, async (trx) => {
    const row = await deleteCdtRecord(trx, instance, patientId, cdtName, id);
    if (!row) throw recordNotFound(patientId, cdtName, id);
    await recordAudit(trx, actor, audit('DELETED', id, patientId));
  });
}

type RowOutcome = { change: CdtValuesChange } | { error: ApiError };

/**
 * DECISIONS §7 bulk PATCH. Every row is checked first; a row that fails (400 bad id or values,
 * 404 unknown record) is reported and not written, and the rows that pass are written together
 * in one transaction. So one bad row never stops the good ones, and good rows are all or nothing.
 */
export async function bulkUpdateRecords(
  services: Services,
  instance: Instance,
  actor: Actor,
  patientId: string,
  cdtName: string,
  body: CdtBulkPatchBody,
) {
  const type = await currentType(services, instance, cdtName);
  return inPatientTransaction(services, instance, patientId, async (trx) => {
    const ids = [...new Set(body.rows.map((row) => row.id).filter((id) => uuidPattern.test(id)))];
    const existing = new Set((await findCdtRecords(trx, instance, patientId, cdtName, ids)).map((row) => row.id));
    const seen = new Set<string>();
    const outcomes: RowOutcome[] = body.rows.map((row, index) => {
      const path = `body.rows.${index}`;
      if (!uuidPattern.test(row.id)) return { error: badField(`${path}.id`, 'must be a uuid') };
      const id = row.id.toLowerCase();
      if (seen.has(id)) return { error: badField(`${path}.id`, 'is listed more than once') };
      seen.add(id);
      if (!existing.has(id)) return { error: recordNotFound(patientId, cdtName, row.id) };
      const values = pickFieldValues(type.fields, row);
      const problems: FieldError[] = recordValueProblems(type.fields, values, { partial: true, path: `${path}.jsonBody` });
      return problems.length > 0 ? { error: validationError(problems) } : { change: { id, values } };
    });
    const changes = outcomes.flatMap((outcome) => ('change' in outcome ? [outcome.change] : []));
    const updated = new Map(
      (await updateCdtRecordValues(trx, instance, patientId, cdtName, actor, instance.currentFormationVersion, changes)).map(
        (row) => [row.id, row],
      ),
    );
    await recordAudit(
      trx,
      actor,
      changes
        .filter((change) => updated.has(change.id))
        .map((change) => audit('UPDATED', change.id, patientId, Object.keys(change.values))),
    );
    return {
      rows: body.rows.map((row, index) => {
        const outcome = outcomes[index]!;
        const written = 'change' in outcome ? updated.get(outcome.change.id) : undefined;
        const error = 'error' in outcome ? outcome.error : written ? undefined : recordNotFound(patientId, cdtName, row.id);
        return {
          id: row.id,
          jsonBody: row.jsonBody ?? null,
          result: error
            ? { status: error.status, content: errorBody(error) }
            : { status: 200, content: cdtRecordView(written!, type.fieldNames) },
        };
      }),
    };
  });
}
