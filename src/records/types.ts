import { defaultDictionaries, readOnlyDictionaries } from '../formation/defaults.ts';
import type { FieldDefinition } from '../formation/field-types.ts';
import type { Formation } from '../formation/schemas.ts';
import type { Context } from '../http/context.ts';
import { ApiError, type ErrorCode } from '../wire/errors.ts';

/**
 * The registry of formation-typed record types. A record type is found by kind and name: the
 * formation's CDTs, PDTs and dictionaries (with the default dictionaries of 001), and the system
 * types areas declare in code (`_document_summary`, `__encounter__`, ...), which are stored as
 * CDT records. Finding one is the 404 of its kind when it does not exist.
 */

export type RecordKind = 'CDT' | 'PDT' | 'DICTIONARY';

export interface RecordType {
  readonly kind: RecordKind;
  readonly name: string;
  readonly fields: readonly FieldDefinition[];
  readonly fieldNames: readonly string[];
  /** SINGLE_RECORD: a patient holds at most one record of the type (DECISIONS §6). */
  readonly single: boolean;
  /** No record may be written (the `timezone` dictionary, 001). */
  readOnly: boolean;
  /** Records carry the formation version they were written under (CDT records). */
  readonly versioned: boolean;
  /** The audit entity and action prefix its changes are logged (and their events named) under. */
  readonly audit: RecordAudit;
}

/** What a record type's changes are in the audit log: `<actionPrefix>_CREATED|UPDATED|DELETED` of `entityType`. */
export interface RecordAudit {
  entityType: string;
  actionPrefix: string;
}

/**
 * A record type defined in code rather than by the formation: a declaration is all a new one
 * takes. Its fields may come from the formation (a document type's custom fields, the
 * disposition's fields), so they are computed from it.
 */
export interface SystemType {
  readonly name: string;
  fields(formation: Formation): readonly FieldDefinition[];
  readonly single?: boolean;
  /** Whether records carry the formation version (default: no, a system type is not the formation's). */
  readonly versioned?: boolean;
  /**
   * A type that is its own entity (encounters: ENCOUNTER_CREATED, not CDT_CREATED): the audit
   * entity and action prefix, whose actions the declaring area puts in its catalog. Default: CDT records'.
   */
  readonly audit?: RecordAudit;
}

export function systemType(declaration: SystemType): SystemType {
  return declaration;
}

/** What differs between the kinds: where their types are defined, and their errors and audit names. */
export interface KindSpec {
  typeNotFound: ErrorCode;
  recordNotFound: ErrorCode;
  /** The details key naming the type in errors: `cdtName`, `pdtName`, `dictionaryName`. */
  nameKey: string;
  /** The audit log's entity type, and the prefix of its actions (`<prefix>_CREATED` ...). */
  entityType: string;
  actionPrefix: string;
  definitions(formation: Formation): readonly { name: string; fields: readonly unknown[]; type?: string }[];
}

export const kinds: Record<RecordKind, KindSpec> = {
  CDT: {
    typeNotFound: 'CDT_NOT_FOUND',
    recordNotFound: 'DT_RECORD_NOT_FOUND',
    nameKey: 'cdtName',
    entityType: 'CDT_RECORD',
    actionPrefix: 'CDT_RECORD',
    definitions: (formation) => formation.cdts ?? [],
  },
  PDT: {
    typeNotFound: 'PDT_NOT_FOUND',
    recordNotFound: 'PDT_RECORD_NOT_FOUND',
    nameKey: 'pdtName',
    entityType: 'PDT_RECORD',
    actionPrefix: 'PDT_RECORD',
    definitions: (formation) => formation.pdts ?? [],
  },
  DICTIONARY: {
    typeNotFound: 'DICTIONARY_NOT_FOUND',
    recordNotFound: 'DICTIONARY_RECORD_NOT_FOUND',
    nameKey: 'dictionaryName',
    entityType: 'DICTIONARY',
    actionPrefix: 'DICTIONARY_RECORD',
    definitions: (formation) => [...defaultDictionaries, ...(formation.dictionaries ?? [])],
  },
};

function typeOf(
  kind: RecordKind,
  name: string,
  fields: readonly FieldDefinition[],
  single: boolean,
  versioned: boolean,
  audit: RecordAudit = kinds[kind],
): RecordType {
  return {
    audit: { entityType: audit.entityType, actionPrefix: audit.actionPrefix },
    kind,
    name,
    fields,
    fieldNames: fields.map((field) => field.name),
    single,
    readOnly: kind === 'DICTIONARY' && readOnlyDictionaries.has(name),
    versioned,
  };
}

/** The formation's type of this kind and name, or its 404. */
export async function findRecordType(ctx: Context, kind: RecordKind, name: string): Promise<RecordType> {
  const spec = kinds[kind];
  const definition = spec.definitions(await ctx.formation()).find((candidate) => candidate.name === name);
  if (!definition) throw new ApiError(spec.typeNotFound, { [spec.nameKey]: name });
  return typeOf(kind, name, definition.fields as FieldDefinition[], definition.type === 'SINGLE_RECORD', kind === 'CDT');
}

/** A system type, with its fields as the current formation makes them. */
export async function systemRecordType(ctx: Context, declaration: SystemType): Promise<RecordType> {
  const fields = declaration.fields(await ctx.formation());
  return typeOf('CDT', declaration.name, fields, declaration.single === true, declaration.versioned === true, declaration.audit);
}
