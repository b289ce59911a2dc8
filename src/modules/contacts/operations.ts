import type { Kysely } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, RowUpdate } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { fieldValueProblem } from '../../formation/field-types.ts';
import type { Formation, PdtDefinition } from '../../formation/schemas.ts';
import type { Context } from '../../http/context.ts';
import type { Paging, SortKey } from '../../http/pagination.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { findPdtRecord, type PdtRecordRow } from '../pdts/index.ts';
import type { ContactInputBody } from './schemas.ts';
import { type ContactFilter, findContact, listContacts } from './store.ts';
import { type ContactField, type ContactRow, contactColumns, contactView } from './views.ts';

/** A contact's writes: each runs in one transaction with its audit row. */

type Columns = Pick<RowUpdate<'contacts'>, (typeof contactColumns)[ContactField]>;

/** The values that can be taken from a PDT record's field, and the type each must fit. */
const fillable = [
  { value: 'email', fieldName: 'emailPdtFieldName', type: 'email' },
  { value: 'phone', fieldName: 'phonePdtFieldName', type: 'phone' },
  { value: 'secondaryPhone', fieldName: 'secondaryPhonePdtFieldName', type: 'phone' },
] as const;

interface LinkedRecord {
  row: PdtRecordRow;
  pdt: PdtDefinition | undefined;
}

function invalid(errors: FieldError[]): void {
  if (errors.length > 0) throw validationError(errors);
}

/**
 * DECISIONS §8: the record behind a new contact must exist in this instance, be live, and be of
 * a type the current formation marks contactable; anything else is a 400.
 */
async function contactableRecord(db: Kysely<DB>, scope: Scope, formation: Formation, id: string): Promise<LinkedRecord> {
  const path = 'body.pdtRecordId';
  // Shared lock: the record cannot be deleted while the contact that names it is written.
  const row = await findPdtRecord(db, scope, id, undefined, { forShare: true });
  if (!row) throw validationError([{ path, message: `no PDT record ${id} in this instance` }]);
  if (row.deleted) throw validationError([{ path, message: `PDT record ${id} is deleted` }]);
  const pdt = formation.pdts?.find((candidate) => candidate.name === row.pdt_name);
  if (!pdt?.contactable) {
    throw validationError([
      { path, message: `PDT type "${row.pdt_name}" is not contactable, so its records cannot back a contact` },
    ]);
  }
  return { row, pdt };
}

/** The columns a body sets; `""` for a formatted value counts as null, as production sends it. */
function columnsOf(body: ContactInputBody): Columns {
  const columns: Columns = {};
  for (const [field, column] of Object.entries(contactColumns) as [ContactField, (typeof contactColumns)[ContactField]][]) {
    const value = body[field];
    if (value === undefined) continue;
    (columns as Record<string, unknown>)[column] =
      value === '' && (field === 'email' || field === 'phone' || field === 'secondaryPhone') ? null : value;
  }
  return columns;
}

/**
 * 001: a contact's email and phones can come from its PDT record. When a body names the field
 * (`emailPdtFieldName`...) but not the value, the value is copied from the record's field.
 */
function fillFromRecord(body: ContactInputBody, columns: Columns, linked: LinkedRecord | undefined): void {
  const errors: FieldError[] = [];
  for (const item of fillable) {
    const fieldName = body[item.fieldName];
    // "" names no field, as production sends empty strings for unset ones.
    if (fieldName === undefined || fieldName === null || fieldName === '') continue;
    const path = `body.${item.fieldName}`;
    if (!linked) {
      errors.push({ path, message: 'needs a pdtRecordId: the contact has no PDT record to take values from' });
      continue;
    }
    if (!linked.pdt?.fields.some((field) => field.name === fieldName)) {
      errors.push({ path, message: `"${fieldName}" is not a field of PDT type "${linked.row.pdt_name}"` });
      continue;
    }
    if (body[item.value] !== undefined) continue;
    const raw = (linked.row.values as Record<string, unknown>)[fieldName];
    const value = raw === undefined || raw === '' ? null : raw;
    const problem = fieldValueProblem({ name: fieldName, type: item.type }, value);
    if (problem || (value !== null && typeof value !== 'string')) {
      errors.push({ path, message: `the PDT record's "${fieldName}" cannot be the contact's ${item.value}: it ${problem}` });
      continue;
    }
    columns[contactColumns[item.value]] = value as string | null;
  }
  invalid(errors);
}

/** The API names of the columns a write sets, for the audit log. */
function changedFieldsOf(columns: Columns, extra: string[] = []): string[] {
  const byColumn = new Map(Object.entries(contactColumns).map(([field, column]) => [column, field]));
  return [...extra, ...Object.keys(columns).map((column) => byColumn.get(column as never) ?? column)];
}

export async function listPatientContacts(
  ctx: Context,
  patientId: string,
  filter: ContactFilter,
  paging: Paging,
  sort: SortKey[],
) {
  const patient = await requirePatient(ctx, patientId);
  const { rows, total } = await listContacts(ctx.db, { ...ctx.scope, patientId: patient.id }, filter, paging, sort);
  return { content: rows.map(contactView), total };
}

export async function getContact(ctx: Context, patientId: string, contactId: string) {
  await requirePatient(ctx, patientId);
  const row = await findContact(ctx.db, { ...ctx.scope, patientId }, contactId);
  if (!row) throw new ApiError('CONTACT_NOT_FOUND', { patientId, contactId });
  return contactView(row);
}

export async function createContact(ctx: Context, patientId: string, body: ContactInputBody) {
  const { scope } = ctx;
  const formation = await ctx.formation();
  const pdtRecordId = body.pdtRecordId ? body.pdtRecordId.toLowerCase() : null;
  const id = uuidv7();
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const trx = w.db;
    const linked = pdtRecordId ? await contactableRecord(trx, scope, formation, pdtRecordId) : undefined;
    const columns = columnsOf(body);
    fillFromRecord(body, columns, linked);
    const inserted = await trx
      .insertInto('contacts')
      .values({
        ...columns,
        active: columns.active ?? true,
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id,
        patient_id: patient.id,
        pdt_record_id: pdtRecordId,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'CONTACT_CREATED',
      entityType: 'CONTACT',
      entityId: id,
      patientId: patient.id,
      changedFields: changedFieldsOf(columns, pdtRecordId ? ['pdtRecordId'] : []),
    });
    return inserted;
  });
  return contactView(row);
}

/** 001: PATCH changes the fields given. `pdtRecordId` is write-once: another value is a 400. */
export async function updateContact(ctx: Context, patientId: string, contactId: string, body: ContactInputBody) {
  const { scope } = ctx;
  const formation = await ctx.formation();
  const ref = { ...scope, patientId };
  const row = await withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    const existing = await findContact(trx, ref, contactId, { forUpdate: true });
    if (!existing) throw new ApiError('CONTACT_NOT_FOUND', { patientId, contactId });
    const requested = body.pdtRecordId === undefined ? undefined : (body.pdtRecordId?.toLowerCase() ?? null);
    if (requested !== undefined && requested !== existing.pdt_record_id) {
      throw validationError(
        [{ path: 'body.pdtRecordId', message: 'cannot change after the contact is created' }],
        `pdtRecordId is write-once: the contact's is ${existing.pdt_record_id ?? 'null'}`,
      );
    }
    const columns = columnsOf(body);
    // The record the contact was created with, live or deleted since, fills values named now.
    const linked = await linkedRecord(trx, scope, formation, existing);
    fillFromRecord(body, columns, linked);
    const updated = await trx
      .updateTable('contacts')
      .set({ ...columns, ...w.updated() })
      .where('tenant_id', '=', scope.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'CONTACT_UPDATED',
      entityType: 'CONTACT',
      entityId: existing.id,
      patientId: existing.patient_id,
      changedFields: changedFieldsOf(columns),
    });
    return updated;
  });
  return contactView(row);
}

async function linkedRecord(
  db: Kysely<DB>,
  scope: Scope,
  formation: Formation,
  contact: ContactRow,
): Promise<LinkedRecord | undefined> {
  if (!contact.pdt_record_id) return undefined;
  const row = await findPdtRecord(db, scope, contact.pdt_record_id);
  if (!row) return undefined;
  return { row, pdt: formation.pdts?.find((candidate) => candidate.name === row.pdt_name) };
}
