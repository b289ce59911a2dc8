import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  attachmentOf,
  communicationChannel,
  compact,
  dateParam,
  eventStatuses,
  type FhirResource,
  type FileJson,
  filesColumn,
  fixedToken,
  partyOf,
  reference,
  referenceParam,
} from '../../http/fhir.ts';
import { CHAT_FILES } from './operations.ts';

/**
 * A chat message as a FHIR R4 Communication (base R4), one of the three sources of Communication
 * with SMS and email, its attachments composed into the same statement. Each field's mapping is
 * in docs/fhir.md.
 */

export const CHAT_MESSAGE_ID_SYSTEM = 'https://cairn.health/fhir/sid/chat-message-id';
export const CHAT_EXTERNAL_ID_SYSTEM = 'https://cairn.health/fhir/sid/chat-message-external-id';

/** v3 ParticipationMode's MSGWRIT: messaging, online chat included. */
const channel = communicationChannel({ code: 'chat', display: 'Chat' }, { code: 'MSGWRIT', display: 'messaging' });

type ChatRow = Row<'chat_messages'> & { attachments: FileJson[] };

function communicationOf(row: ChatRow) {
  const receiver = partyOf(row.receiver_type, row.receiver_id, null);
  return {
    resourceType: 'Communication',
    id: row.id,
    meta: { lastUpdated: row.created_at.toISOString() },
    identifier: [
      { use: 'usual', system: CHAT_MESSAGE_ID_SYSTEM, value: row.id },
      { use: 'secondary', system: CHAT_EXTERNAL_ID_SYSTEM, value: row.external_id },
    ],
    // A chat message is there once written: nothing is pending or failed.
    status: 'completed',
    ...channel.elements,
    subject: reference('Patient', row.patient_id),
    sent: row.created_at.toISOString(),
    recipient: receiver ? [receiver] : [],
    sender: partyOf(row.sender_type, row.sender_id, null),
    payload: [
      ...(row.message ? [{ contentString: row.message }] : []),
      ...row.attachments.map((file) => ({ contentAttachment: attachmentOf(file) })),
    ],
  };
}

/**
 * Communication from chat: an instance's chat messages but deleted ones (archived ones too:
 * archiving only hides a chat), searched by patient (the chat's patient index) and time sent.
 */
export const fhirChatCommunication: FhirResource = {
  type: 'Communication',
  permission: 'CHAT_READ',
  table: 'chat_messages',
  instanceScoped: true,
  where: [sql<SqlBool>`r.deleted_at IS NULL`],
  patient: { column: 'patient_id' },
  logAs: 'COMMUNICATION',
  auditEntity: 'CHAT',
  notFound: 'CHAT_MESSAGE_NOT_FOUND',
  // A message never changes: its creation is its last update.
  updatedColumn: 'created_at',
  columns: (tenantId) => [filesColumn(CHAT_FILES, 'attachments')(tenantId)],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    sent: dateParam('sent', 'created_at', 'instant'),
    status: fixedToken('status', { system: 'http://hl7.org/fhir/event-status', code: 'completed' }, eventStatuses),
    ...channel.params,
  },
  toFhir: (row: ChatRow) => compact(communicationOf(row)),
};
