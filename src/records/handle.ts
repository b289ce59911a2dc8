import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AuditAction } from '../events/audit.ts';
import type { Work } from '../events/work.ts';
import { pickFieldValues, recordValueProblems } from '../formation/field-types.ts';
import type { Context } from '../http/context.ts';
import { ApiError, type FieldError, validationError } from '../wire/errors.ts';
import {
  findRecord,
  insertRecord,
  mergedValues,
  type RecordLookup,
  type RecordRows,
  type RecordSource,
  removeRecord,
  writeRecordValues,
} from './store.ts';
import {
  findRecordType,
  type KindSpec,
  kinds,
  type RecordKind,
  type RecordType,
  type SystemType,
  systemRecordType,
} from './types.ts';

/** The id key of each kind's record-not-found details, as the areas answered before the kernel. */
const recordIdKeys: Record<RecordKind, string> = { CDT: 'cdtRecordId', PDT: 'pdtId', DICTIONARY: 'dictionaryRecordId' };

export interface CheckOptions {
  /** PATCH: only the keys present are checked; required fields may be left out. */
  partial?: boolean;
  /** Where the values sit in the request, for error paths (`body`, `body.rows.3.jsonBody`). */
  path?: string;
}

/**
 * The one handle on formation-typed records: it finds the type (or answers the 404 of its kind),
 * checks values against the type's fields, and writes records of it, stamped, versioned and
 * audited, to the kind's storage. CDT, PDT and dictionary records go through it, and so does
 * every system type (a new one is a `systemType` declaration).
 */
export class Records<K extends RecordKind = RecordKind> {
  private constructor(
    readonly ctx: Context,
    readonly kind: K,
    readonly type: RecordType,
  ) {}

  static async of<K extends RecordKind>(ctx: Context, kind: K, name: string): Promise<Records<K>> {
    return new Records(ctx, kind, await findRecordType(ctx, kind, name));
  }

  static async system(ctx: Context, declaration: SystemType): Promise<Records<'CDT'>> {
    return new Records(ctx, 'CDT', await systemRecordType(ctx, declaration));
  }

  private get spec(): KindSpec {
    return kinds[this.kind];
  }

  get name(): string {
    return this.type.name;
  }

  /** The formation version a record is written under, for types that keep one. */
  get version(): number | null {
    return this.type.versioned ? this.ctx.instance.currentFormationVersion : null;
  }

  /** 400 DICTIONARY_READ_ONLY for a type no record may be written to (001: `timezone`). */
  writable(): this {
    if (this.type.readOnly) throw new ApiError('DICTIONARY_READ_ONLY', { [this.spec.nameKey]: this.name });
    return this;
  }

  /** The type's field values in a body, and what is wrong with them (every problem at once). */
  check(body: Record<string, unknown>, { partial = false, path = 'body' }: CheckOptions = {}) {
    const values = pickFieldValues(this.type.fields, body);
    const problems: FieldError[] = recordValueProblems(this.type.fields, values, { partial, path });
    return { values, problems };
  }

  /** The type's field values in a body, checked: 400 VALIDATION_ERROR naming every problem. */
  values(body: Record<string, unknown>, options: CheckOptions = {}): Record<string, unknown> {
    const { values, problems } = this.check(body, options);
    if (problems.length > 0) throw validationError(problems);
    return values;
  }

  notFound(id: string, details: Record<string, unknown> = {}): ApiError {
    const key = this.kind === 'CDT' ? { patientId: details.patientId } : {};
    return new ApiError(this.spec.recordNotFound, {
      ...key,
      [recordIdKeys[this.kind]]: id,
      [this.spec.nameKey]: this.name,
      ...details,
    });
  }

  find(db: Kysely<DB>, id: string, lookup: RecordLookup = {}): Promise<RecordRows[K] | undefined> {
    return findRecord(db, this.kind, this.ctx.scope, this.name, id, lookup);
  }

  /** The record, or the 404 of its kind. */
  async require(db: Kysely<DB>, id: string, lookup: RecordLookup = {}): Promise<RecordRows[K]> {
    const row = await this.find(db, id, lookup);
    if (!row) throw this.notFound(id, lookup.patientId ? { patientId: lookup.patientId } : {});
    return row;
  }

  /** A new record of checked values, with its audit row and event. */
  async create(
    w: Work,
    values: Record<string, unknown>,
    options: { patientId?: string; source?: RecordSource; id?: string } = {},
  ): Promise<RecordRows[K]> {
    const row = await insertRecord(w, this.kind, this.ctx.scope, this.name, { values, version: this.version, ...options });
    this.changed(w, 'CREATED', { id: row.id, patientId: options.patientId, changedFields: Object.keys(values) });
    return row;
  }

  /** Applies checked changes (a null clears the field) to a record, with its audit row and event. */
  async change(w: Work, row: RecordRows[K], changes: Record<string, unknown>): Promise<RecordRows[K]> {
    const updated = await writeRecordValues(w, this.kind, row, mergedValues(row.values, changes), this.version);
    this.changed(w, 'UPDATED', { id: row.id, patientId: patientOf(row), changedFields: Object.keys(changes) });
    return updated;
  }

  /** Replaces a record's values whole (fields left out are removed), with its audit row and event. */
  async replace(w: Work, row: RecordRows[K], values: Record<string, unknown>): Promise<RecordRows[K]> {
    const updated = await writeRecordValues(w, this.kind, row, values, this.version);
    this.changed(w, 'UPDATED', { id: row.id, patientId: patientOf(row), changedFields: Object.keys(values) });
    return updated;
  }

  /** Deletes a CDT record, or marks a PDT record or dictionary value deleted; with its audit row and event. */
  async remove(w: Work, row: RecordRows[K], changedFields?: string[]): Promise<RecordRows[K]> {
    const removed = await removeRecord(w, this.kind, row);
    this.changed(w, 'DELETED', { id: row.id, patientId: patientOf(row), changedFields });
    return removed;
  }

  /** Records changes of records of the type (audit rows and events), named by the type. */
  changed(w: Work, action: 'CREATED' | 'UPDATED' | 'DELETED', ...entries: AuditedRecord[]): void {
    w.changed(
      entries.map(({ id, patientId, changedFields }) => ({
        action: `${this.type.audit.actionPrefix}_${action}` as AuditAction,
        entityType: this.type.audit.entityType,
        entityId: id,
        about: { [this.spec.nameKey]: this.name },
        ...(patientId ? { patientId } : {}),
        ...(changedFields ? { changedFields } : {}),
      })),
    );
  }
}

export interface AuditedRecord {
  id: string;
  patientId?: string | undefined;
  changedFields?: string[] | undefined;
}

/** The patient a CDT record belongs to; PDT records and dictionary values belong to none. */
function patientOf(row: object): string | undefined {
  return 'patient_id' in row ? (row.patient_id as string) : undefined;
}
