import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { CsvList, DateTime, E164, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';
import { LinkedFileEntry } from '../files/index.ts';

/** The wire contract of faxes: 002 "Fax" and its endpoints, DECISIONS §8. */

export const faxStatuses = ['DRAFT', 'QUEUED', 'SENDING', 'SENT', 'DELIVERED', 'FAILED', 'RECEIVED'] as const;
export type FaxStatus = (typeof faxStatuses)[number];
const FaxStatusSchema = Type.Enum(faxStatuses);
const Direction = Type.Union([Type.Literal('IN'), Type.Literal('OUT')]);

export const FaxNumber = Type.Object({
  type: Type.Optional(Type.Literal('FAX_NUMBER')),
  faxNumber: E164,
});

export const FaxParams = Type.Object({ ...InstanceParams.properties, faxId: Uuid });
export const FaxFileParams = Type.Object({ ...FaxParams.properties, fileId: Uuid });

/** A draft's fields (002: POST `/faxes`); read-only and unknown keys are ignored (DECISIONS §10). */
export const FaxInput = Type.Object({
  subject: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  highQuality: Type.Optional(Type.Boolean()),
  patientId: Type.Optional(Nullable(Uuid)),
  sender: Type.Optional(Nullable(FaxNumber)),
  receiver: Type.Optional(Nullable(FaxNumber)),
});
export type FaxInputBody = Static<typeof FaxInput>;

/** 002: PATCH takes `patientId` for outgoing faxes only, `reviewed` for incoming ones only. */
export const FaxPatch = Type.Object({
  ...FaxInput.properties,
  reviewed: Type.Optional(Type.Boolean()),
});
export type FaxPatchBody = Static<typeof FaxPatch>;

export const Fax = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Uuid),
  updatedBy: Nullable(Uuid),
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
  faxId: Nullable(Type.String({ description: "The provider's id of the fax" })),
  externalId: Nullable(Type.String()),
  direction: Direction,
  fromNumber: Nullable(Type.String()),
  toNumber: Nullable(Type.String()),
  sender: Nullable(FaxNumber),
  receiver: Nullable(FaxNumber),
  subject: Nullable(Type.String()),
  status: FaxStatusSchema,
  originalStatus: Nullable(Type.String()),
  statusMessage: Nullable(Type.String()),
  document: Nullable(Type.Object({ id: Uuid, type: Type.String(), title: Nullable(Type.String()) })),
  patient: Nullable(Type.Object({ id: Uuid, name: Type.String() })),
  receivedAt: Nullable(DateTime),
  highQuality: Type.Boolean(),
  files: Type.Array(LinkedFileEntry),
  sentBy: Nullable(Uuid),
  sentByName: Nullable(Type.String()),
  reviewed: Nullable(Type.Boolean()),
  pages: Nullable(Type.Integer()),
});
export type FaxView = Static<typeof Fax>;

const Digits = Type.String({ pattern: '^\\+?[0-9]{1,15}$', description: 'The number as digits (002: without the plus)' });

export const FaxListQuery = Type.Object({
  ...PagingQuery,
  statuses: Type.Optional(CsvList(FaxStatusSchema, { maxItems: 7, description: 'Any of these statuses' })),
  direction: Type.Optional(Direction),
  subject: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the subject (any case)' })),
  fromNumber: Type.Optional(Digits),
  toNumber: Type.Optional(Digits),
  patientId: Type.Optional(Uuid),
  reviewed: Type.Optional(Type.Boolean()),
  sentByName: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the sender’s name (any case)' })),
  sentBy: Type.Optional(Uuid),
  createdAtAfter: Type.Optional(DateTime),
  createdAtBefore: Type.Optional(DateTime),
  receivedAtAfter: Type.Optional(DateTime),
  receivedAtBefore: Type.Optional(DateTime),
});
export type FaxListFilters = Omit<Static<typeof FaxListQuery>, 'page' | 'size' | 'sort'>;
