import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the chat area adds to the shared catalogs, beside its routes. */

export const chatPermissions = {
  CHAT_READ: "Read and search patients' chat messages and their attachments",
  CHAT_UPDATE: "Add messages to patients' chats, and archive and restore them",
  CHAT_EXPORT: 'Export chat messages (API clients, /export/CHAT)',
  MESSAGING_APP_EXPORT: 'Export messages of a chat application (API clients, /export/MESSAGING_APP; always empty)',
} as const;

export const chatErrors = {
  EMPTY_MESSAGE: { status: 400, componentType: 'CHAT', message: 'A chat message needs text or a file' },
  // FHIR's Communication/{id} of a chat message not there (Cairn's chat has no read by id of its own).
  CHAT_MESSAGE_NOT_FOUND: { status: 404, componentType: 'CHAT', message: 'Chat message not found' },
} as const;

/** 000: chat attachments are jpg, mp3, pdf, png, jpeg, wav or ogg; the sizes are Cairn's (000 shows none). */
export const chatFiles = {
  CHAT_MESSAGE: {
    readPermission: 'CHAT_READ',
    rules: {
      extensions: ['jpg', 'jpeg', 'png', 'pdf', 'mp3', 'wav', 'ogg'],
      maxFileBytes: 25 * MB,
      maxFiles: 10,
      maxTotalBytes: 50 * MB,
    },
  },
} as const satisfies Record<string, FileOwner>;

/** The events its records are (DECISIONS §9); a message sent with `skipEvent` makes none. */
export const chatEvents = {
  CHAT: {
    description: "Patients' chat messages, and archiving a chat",
    subtypes: ['CHAT_CREATED', 'CHAT_ARCHIVED', 'CHAT_RESTORED'],
  },
} as const satisfies EventCatalog;

export const chatAuditActions = {
  CHAT_CREATED: { description: 'A chat message was added', events: ['CHAT_CREATED'] },
  CHAT_ARCHIVED: { description: "A patient's chat was archived up to a date", events: ['CHAT_ARCHIVED'] },
  CHAT_RESTORED: { description: "A patient's archived chat was restored", events: ['CHAT_RESTORED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof chatPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof chatErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof chatAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof chatEvents> {}
}
