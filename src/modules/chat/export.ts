import { sql } from 'kysely';
import type { ExportSource } from '../../http/export.ts';
import { chatListViews } from './operations.ts';
import { ChatMessage } from './schemas.ts';

/**
 * Chat messages in the bulk export: each as the chat list shows it (attachments with fresh links).
 * A message never changes, so its creation is its last update (chat_messages_export_idx); one the
 * list leaves out as deleted is left out here too. Archived ones come: archiving only hides a chat.
 */
export const chatExport: ExportSource = {
  permission: 'CHAT_EXPORT',
  summary: 'chat messages',
  item: ChatMessage,
  table: 'chat_messages',
  patientsOf: { column: 'patient_id' },
  updatedColumn: 'created_at',
  where: () => [sql`r.deleted_at IS NULL`],
  view: (ctx, rows, origin) => chatListViews(ctx, rows, origin),
};

/**
 * 002's messages of a chat application: Cairn has no third-party messaging-app channel, so none is
 * ever stored. The resource answers, always empty, with the same cursor and item shape as CHAT.
 */
export const messagingAppExport: ExportSource = {
  ...chatExport,
  permission: 'MESSAGING_APP_EXPORT',
  summary: 'messages of a chat application (none: Cairn has no messaging-app channel)',
  where: () => [sql`false`],
};
