import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, Email, InstanceParams, JsonObject, Nullable, Uuid } from '../../wire/schemas.ts';
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
