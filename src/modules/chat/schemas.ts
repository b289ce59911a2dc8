import { type Static, Type } from 'typebox';
import { DateTime, Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';
import { LinkedFileEntry } from '../files/index.ts';

/** The wire contract of chat: 002 "Chat message" and "Chat and files", PROD-SHAPES "Chat message", DECISIONS §3. */

const Party = Type.Object({
  clientType: Type.String({ description: 'PATIENT or USER' }),
  id: Nullable(Uuid),
  titleName: Nullable(Type.String({ description: "A user's full name; null for a patient" })),
  patientFullName: Nullable(Type.String({ description: 'Filled in the inbound answer only (PROD-SHAPES)' })),
});

export const ChatMessage = Type.Object({
  id: Uuid,
  sender: Party,
  receiver: Nullable(Party),
  message: Nullable(Type.String()),
  externalId: Type.String(),
  createdAt: DateTime,
  attachments: Type.Array(LinkedFileEntry),
  skipEvent: Type.Boolean(),
  deletedAt: Nullable(DateTime),
});
export type ChatMessageView = Static<typeof ChatMessage>;

/** Token pages (000; DECISIONS §3: `found` beside `isFound`). */
export const TokenMeta = Type.Object({
  nextPageToken: Nullable(Type.String()),
  prevPageToken: Nullable(Type.String()),
  pageSize: Type.Integer(),
  found: Type.Boolean(),
  isFound: Type.Boolean(),
});

export const ChatPage = Type.Object({ meta: TokenMeta, content: Type.Array(ChatMessage) });

export const SearchPage = Type.Object({
  meta: TokenMeta,
  content: Type.Array(
    Type.Object({
      meta: Type.Object({ nextPageToken: Nullable(Type.String()), prevPageToken: Nullable(Type.String()) }),
      message: ChatMessage,
    }),
  ),
});

const PageSize = Type.Integer({ minimum: 1, maximum: 100, description: '1–100, default 20' });
const PageToken = Type.String({ minLength: 1, maxLength: 2000, description: 'Opaque; carries size, flags and query' });

export const ChatListQuery = Type.Object({
  size: Type.Optional(PageSize),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
  includeArchived: Type.Boolean({ default: false }),
});

export const ChatSearchQuery = Type.Object({
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Matched in message text, any case' })),
  pageSize: Type.Optional(PageSize),
  contentPageSize: Type.Optional(PageSize),
  includeArchived: Type.Boolean({ default: false }),
  pageToken: Type.Optional(PageToken),
});

/** JSON inbound: `{message}` (multipart: a `message` field and `attachmentAsFiles` parts). */
export const InboundJson = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 10_000 }),
  skipEvent: Type.Optional(Type.Boolean()),
});

export const ArchiveInput = Type.Object({ archiveDate: DateTime });

export const ChatParams = PatientParams;
