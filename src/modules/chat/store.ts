import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { PatientScope } from '../../db/scope.ts';
import { likeContains } from '../../db/sql.ts';
import { type KeysetKey, keysetPage } from '../../http/pagination.ts';

/** A patient's chat: every query names the tenant, the instance and the patient. */

export type ChatRow = Row<'chat_messages'>;

/** Which way a token page reads from its position: older messages (down the list) or newer (up). */
export type Direction = 'older' | 'newer';

export interface ChatSelection {
  /** Messages until this instant are archived: left out. */
  archivedUntil?: Date | undefined;
  /** Lower-cased text the message must contain. */
  text?: string | undefined;
}

const keys = (direction: 'asc' | 'desc'): KeysetKey<ChatRow>[] => [
  { column: 'm.created_at', direction, valueOf: (row) => row.created_at },
  { column: 'm.id', direction, valueOf: (row) => row.id },
];

/**
 * A page of messages from a position, newest first either way: older ones follow the position down
 * the list; newer ones are read upwards and turned round. Keyset on (created_at, id) by the patient
 * index, so any page costs what the first does. `more` says whether the list goes on that way.
 */
export async function chatPage(
  db: Kysely<DB>,
  where: PatientScope,
  selection: ChatSelection,
  direction: Direction,
  at: readonly unknown[] | undefined,
  size: number,
): Promise<{ rows: ChatRow[]; more: boolean }> {
  let query = db
    .selectFrom('chat_messages as m')
    .selectAll('m')
    .where('m.tenant_id', '=', where.tenantId)
    .where('m.patient_id', '=', where.patientId)
    .where('m.instance_id', '=', where.instanceId)
    .where('m.deleted_at', 'is', null);
  if (selection.archivedUntil) query = query.where('m.created_at', '>', selection.archivedUntil);
  if (selection.text) query = query.where(sql<SqlBool>`lower(m.message) LIKE ${likeContains(selection.text)}`);
  const { rows, next } = await keysetPage(query, keys(direction === 'older' ? 'desc' : 'asc'), at, size);
  return { rows: direction === 'older' ? rows : rows.reverse(), more: next !== null };
}

export async function archivedUntil(db: Kysely<DB>, where: PatientScope): Promise<Date | undefined> {
  const row = await db
    .selectFrom('chat_archives')
    .select('archived_until')
    .where('tenant_id', '=', where.tenantId)
    .where('patient_id', '=', where.patientId)
    .executeTakeFirst();
  return row?.archived_until;
}
