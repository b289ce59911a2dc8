import { v7 as uuidv7 } from 'uuid';
import { type Actor, createdStamp, recordAudit, updatedStamp } from '../../events/audit.ts';
import { type FieldDefinition, pickFieldValues, recordValueProblems } from '../../formation/field-types.ts';
import type { Formation, PdtDefinition } from '../../formation/schemas.ts';
import { dataAndMeta, type Paging, type SortKey } from '../../http/pagination.ts';
import type { Services } from '../../http/services.ts';
import { fullValue } from '../../records/json-body.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { viewsOf } from '../patients/operations.ts';
import {
  findPdtRecord,
  type InstanceRef,
  lastUpdatedAt,
  listPdtRecords,
  type PdtRecordFilter,
  type PdtRecordRow,
  patientsOfPdtRecord,
} from './store.ts';
import { pdtRecordView } from './views.ts';

/** PDT record reads and writes; each write runs in one transaction with its audit row. */

const refOf = (instance: Instance): InstanceRef => ({ tenantId: instance.tenantId, instanceId: instance.id });

/** The type as the current formation defines it, or 404 PDT_NOT_FOUND. */
export function pdtTypeOf(formation: Formation, pdtName: string): PdtDefinition {
  const pdt = formation.pdts?.find((candidate) => candidate.name === pdtName);
  if (!pdt) throw new ApiError('PDT_NOT_FOUND', { pdtName }, `No profile data type named "${pdtName}" in the formation`);
  return pdt;
}

async function currentType(services: Services, instance: Instance, pdtName: string): Promise<PdtDefinition> {
  return pdtTypeOf(await services.currentFormation(instance), pdtName);
}

function notFound(pdtName: string, pdtId: string): ApiError {
  return new ApiError('PDT_RECORD_NOT_FOUND', { pdtName, pdtId });
}

/** The type's field values in the body, checked against the type (400 with every problem). */
function valuesOf(pdt: PdtDefinition, body: Record<string, unknown>, partial: boolean): Record<string, unknown> {
  const fields = pdt.fields as FieldDefinition[];
  const values = pickFieldValues(fields, body);
  const problems = recordValueProblems(fields, values, { partial, path: 'body' });
  if (problems.length > 0) throw validationError(problems);
  return values;
}

export async function listPdt(
  services: Services,
  instance: Instance,
  pdtName: string,
  filter: PdtRecordFilter,
  paging: Paging,
  sort: SortKey[],
) {
  const pdt = await currentType(services, instance, pdtName);
  const [{ rows, total }, last] = await Promise.all([
    listPdtRecords(services.db, refOf(instance), pdtName, filter, paging, sort),
    lastUpdatedAt(services.db, refOf(instance), pdtName),
  ]);
  return {
    pdtName,
    lastUpdatedAt: last,
    records: dataAndMeta(
      rows.map((row) => pdtRecordView(row, pdt)),
      total,
      paging,
    ),
  };
}

export async function getPdtRecord(services: Services, instance: Instance, pdtName: string, pdtId: string) {
  const pdt = await currentType(services, instance, pdtName);
  const row = await findPdtRecord(services.db, refOf(instance), pdtId, pdtName);
  if (!row) throw notFound(pdtName, pdtId);
  return pdtRecordView(row, pdt);
}

export async function createPdtRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  pdtName: string,
  body: Record<string, unknown>,
) {
  const pdt = await currentType(services, instance, pdtName);
  const values = valuesOf(pdt, body, false);
  const id = uuidv7();
  const row = await services.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('pdt_records')
      .values({
        tenant_id: instance.tenantId,
        instance_id: instance.id,
        id,
        pdt_name: pdtName,
        values: JSON.stringify(values),
        full_value: fullValue(values),
        deleted: false,
        external_guid: uuidv7(),
        ...createdStamp(actor),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, actor, {
      action: 'PDT_RECORD_CREATED',
      entityType: 'PDT_RECORD',
      entityId: id,
      changedFields: Object.keys(values),
    });
    return inserted;
  });
  return pdtRecordView(row, pdt);
}

/** 001: PATCH changes the fields given; `null` clears a field. A deleted record is read-only. */
export async function updatePdtRecord(
  services: Services,
  instance: Instance,
  actor: Actor,
  pdtName: string,
  pdtId: string,
  body: Record<string, unknown>,
) {
  const pdt = await currentType(services, instance, pdtName);
  const changes = valuesOf(pdt, body, true);
  const row = await services.db.transaction().execute(async (trx) => {
    const existing = await findPdtRecord(trx, refOf(instance), pdtId, pdtName, { forUpdate: true });
    if (!existing) throw notFound(pdtName, pdtId);
    if (existing.deleted) {
      throw new ApiError('BAD_REQUEST', { pdtName, pdtId, deleted: true }, 'The PDT record is deleted and can no longer change');
    }
    const values: Record<string, unknown> = { ...(existing.values as Record<string, unknown>) };
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) delete values[name];
      else values[name] = value;
    }
    const updated = await trx
      .updateTable('pdt_records')
      .set({
        values: JSON.stringify(values),
        full_value: fullValue(values),
        ...updatedStamp(actor),
      })
      .where('tenant_id', '=', instance.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, actor, {
      action: 'PDT_RECORD_UPDATED',
      entityType: 'PDT_RECORD',
      entityId: existing.id,
      changedFields: Object.keys(changes),
    });
    return updated;
  });
  return pdtRecordView(row, pdt);
}

/** DECISIONS §8: a soft delete answering 200 with the record; deleting it again changes nothing. */
export async function deletePdtRecord(services: Services, instance: Instance, actor: Actor, pdtName: string, pdtId: string) {
  const pdt = await currentType(services, instance, pdtName);
  const row: PdtRecordRow = await services.db.transaction().execute(async (trx) => {
    const existing = await findPdtRecord(trx, refOf(instance), pdtId, pdtName, { forUpdate: true });
    if (!existing) throw notFound(pdtName, pdtId);
    if (existing.deleted) return existing;
    const updated = await trx
      .updateTable('pdt_records')
      .set({ deleted: true, ...updatedStamp(actor) })
      .where('tenant_id', '=', instance.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, actor, {
      action: 'PDT_RECORD_DELETED',
      entityType: 'PDT_RECORD',
      entityId: existing.id,
      changedFields: ['deleted'],
    });
    return updated;
  });
  return pdtRecordView(row, pdt);
}

/** 001: the patients linked to the record through their contacts (page object). */
export async function patientsOfRecord(services: Services, instance: Instance, pdtName: string, pdtId: string, paging: Paging) {
  await currentType(services, instance, pdtName);
  const record = await findPdtRecord(services.db, refOf(instance), pdtId, pdtName);
  if (!record) throw notFound(pdtName, pdtId);
  const { rows, total } = await patientsOfPdtRecord(services.db, refOf(instance), pdtId, paging);
  return { content: await viewsOf(services, instance, rows), total };
}
