import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { MessageRecordFields } from '../../records/messages.ts';
import { CsvList, DateTime, Email, InstanceParams, JsonObject, Nullable, Uuid } from '../../wire/schemas.ts';
import { LinkedFileEntry } from '../files/index.ts';

/** The wire contract of email drafts: 002 "Email draft", DECISIONS §8. */

/** `{patientId}`: a patient's id, or a contact's of a patient (the contact is then the receiver, 002). */
export const RecipientParams = Type.Object({ ...InstanceParams.properties, patientId: Uuid });
export const DraftParams = Type.Object({ ...RecipientParams.properties, draftId: Uuid });

const BodyType = Type.Union([Type.Literal('PLAIN_TEXT'), Type.Literal('HTML')], {
  description: 'PLAIN_TEXT (default) or HTML, which is sanitized before it is stored',
});
const OptionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

/** What a client writes; read-only keys (`id`, `sender`, names, `status`) and unknown ones are ignored (002, DECISIONS §10). */
const draftFields = {
  date: Type.Optional(Nullable(DateTime)),
  subject: OptionalText(998),
  body: OptionalText(1_000_000),
  bodyType: Type.Optional(BodyType),
  emailEditorJson: Type.Optional(Nullable(JsonObject)),
  scheduledAt: Type.Optional(Nullable(DateTime)),
  patientEmail: Type.Optional(Nullable(Email)),
  secure: Type.Optional(Type.Boolean({ description: 'Default false' })),
  attachmentsFromTemplate: Type.Optional(Type.Array(JsonObject, { maxItems: 20 })),
  priority: Type.Optional(Type.String({ maxLength: 64, description: 'Default NO_PRIORITY' })),
  templateName: OptionalText(255),
  starred: Type.Optional(Type.Boolean()),
};

export const DraftInput = Type.Object(draftFields);
export type DraftInputBody = Static<typeof DraftInput>;

export const EmailDraft = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  date: Nullable(DateTime),
  subject: Nullable(Type.String()),
  body: Nullable(Type.String()),
  emailEditorJson: Nullable(JsonObject),
  scheduledAt: Nullable(DateTime),
  sender: Nullable(Uuid),
  receiver: Uuid,
  patientEmail: Nullable(Type.String()),
  secure: Type.Boolean(),
  attachments: Type.Array(LinkedFileEntry),
  attachmentsFromTemplate: Type.Array(JsonObject),
  bodyAttachments: Type.Array(LinkedFileEntry),
  priority: Type.String(),
  source: Type.String(),
  templateName: Nullable(Type.String()),
  bodyType: Type.String(),
  senderName: Nullable(Type.String()),
  receiverName: Nullable(Type.String()),
  status: Type.String(),
  starred: Type.Boolean(),
});
export type EmailDraftView = Static<typeof EmailDraft>;

export const DraftListQuery = Type.Object({ ...PagingQuery });

/** DECISIONS §8: the statuses an email has, and filters by. */
export const emailStatuses = ['SCHEDULED', 'ACCEPTED', 'DELIVERED', 'REJECTED', 'FAILED', 'UNRECOGNISED'] as const;
export type EmailStatus = (typeof emailStatuses)[number];
const EmailStatusSchema = Type.Enum(emailStatuses, {
  description:
    'SCHEDULED (to go at scheduledAt), ACCEPTED (queued, or taken by a provider that reports later), DELIVERED, REJECTED (refused for good), FAILED (could not be sent), UNRECOGNISED (inbound from an address no patient or contact has)',
});
const Direction = MessageRecordFields.direction;

export const EmailParams = Type.Object({ ...RecipientParams.properties, emailId: Uuid });

/** An email: the message record of 002 with PROD-SHAPES' email keys (`sender` and `receiver` ids). */
export const EmailRecord = Type.Object({
  ...MessageRecordFields,
  subject: Nullable(Type.String()),
  body: Nullable(Type.String()),
  bodyType: Type.String(),
  status: EmailStatusSchema,
  secure: Type.Boolean(),
  priority: Type.String(),
  templateName: Nullable(Type.String()),
  attachments: Type.Array(LinkedFileEntry),
});
export type EmailView = Static<typeof EmailRecord>;

/** 002's email list filters; the names beyond status, email and starred are Cairn's (002 open items). */
export const EmailListQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(CsvList(EmailStatusSchema, { maxItems: 6, description: 'Any of these statuses' })),
  email: Type.Optional(Type.String({ maxLength: 320, description: 'The from or to address is this one (any case)' })),
  starred: Type.Optional(Type.Boolean()),
  direction: Type.Optional(Direction),
  senderId: Type.Optional(Uuid),
  receiverId: Type.Optional(Uuid),
  from: Type.Optional(Type.String({ maxLength: 320, description: 'The from address is this one (any case)' })),
  to: Type.Optional(Type.String({ maxLength: 320, description: 'The to address is this one (any case)' })),
  senderName: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the sender’s name (any case)' })),
  receiverName: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the receiver’s name (any case)' })),
  dateAfter: Type.Optional(DateTime),
  dateBefore: Type.Optional(DateTime),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Part of the subject or body (any case)' })),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Alias of search' })),
});
export type EmailListFilters = Omit<Static<typeof EmailListQuery>, 'page' | 'size' | 'sort'>;
