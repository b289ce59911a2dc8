import { type Static, type TSchema, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, E164, Email, Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';

/** The wire contract of a patient's contacts: 001 "Contact (of a patient)", PROD-SHAPES "Contact". */

export const ContactParams = Type.Object({ ...PatientParams.properties, contactId: Uuid });

/** Optional on write; `null` clears it and, as production sends, `""` counts as null. */
function Clearable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Literal(''), Type.Null()]));
}
function OptionalText(description?: string) {
  return Type.Optional(Nullable(Type.String({ maxLength: 255, ...(description ? { description } : {}) })));
}

/**
 * Every field a client may write; none is required. Other keys (read-only ones such as `id`,
 * `patientId` or timestamps, or unknown ones) are ignored (DECISIONS §10).
 */
const writableProperties = {
  name: OptionalText(),
  email: Clearable(Email),
  emailLabel: OptionalText(),
  emailPdtFieldName: OptionalText('A field of the PDT record; with no `email` given, the email is taken from it'),
  phone: Clearable(E164),
  phoneLabel: OptionalText(),
  phonePdtFieldName: OptionalText('A field of the PDT record; with no `phone` given, the phone is taken from it'),
  secondaryPhone: Clearable(E164),
  secondaryPhoneLabel: OptionalText(),
  secondaryPhonePdtFieldName: OptionalText(
    'A field of the PDT record; with no `secondaryPhone` given, the secondary phone is taken from it',
  ),
  relation: OptionalText(),
  active: Type.Optional(Type.Boolean({ description: 'Default true' })),
  pdtRecordId: Type.Optional(
    Nullable(
      Type.String({
        format: 'uuid',
        description: 'A live record of a contactable PDT type; write-once (a different value on PATCH is a 400)',
      }),
    ),
  ),
};

export const ContactInput = Type.Object(writableProperties);
export type ContactInputBody = Static<typeof ContactInput>;

export const Contact = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  emailLabel: Nullable(Type.String()),
  emailPdtFieldName: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  phoneLabel: Nullable(Type.String()),
  phonePdtFieldName: Nullable(Type.String()),
  secondaryPhone: Nullable(Type.String()),
  secondaryPhoneLabel: Nullable(Type.String()),
  secondaryPhonePdtFieldName: Nullable(Type.String()),
  patientId: Uuid,
  pdtRecordId: Nullable(Uuid),
  relation: Nullable(Type.String()),
  active: Type.Boolean(),
});
export type ContactView = Static<typeof Contact>;

export const ContactListQuery = Type.Object({
  ...PagingQuery,
  active: Type.Optional(Type.Boolean()),
  relation: Type.Optional(Type.String({ maxLength: 255, description: 'The whole relation, as stored' })),
});
