import type { Selectable } from 'kysely';
import { Type } from 'typebox';
import type { Timestamp } from '../db/schema.ts';
import type { Actor, AuditAction } from '../events/audit.ts';
import type { EventSubtype } from '../events/outbox.ts';
import type { PatientData, PatientScope, Work } from '../events/work.ts';
import type { Context } from '../http/context.ts';
import type { InboundMessage } from '../providers/channels.ts';
import { forgetSandboxMessages } from '../providers/sandbox.ts';
import { DateTime, JsonObject, Nullable, Uuid } from '../wire/schemas.ts';
import { write } from '../work/write.ts';
import { patientName, type Recipient, type senderOf } from './recipients.ts';

/**
 * What every message record shares (002 "Message record": emails, SMS, voice calls): its columns,
 * its keys on the wire, and the one way its status moves (with its audit row and events).
 */

/** The columns of every message table (`emails`, `sms_messages`, `voice_calls`). */
export interface MessageColumns {
  tenant_id: string;
  instance_id: string;
  id: string;
  /** Null: inbound from an address or number no patient or contact has (UNRECOGNISED). */
  patient_id: string | null;
  contact_id: string | null;
  direction: 'IN' | 'OUT';
  status: string;
  /** The address or number it came from, and went to. */
  from_address: string;
  to_address: string;
  sender: string | null;
  sender_type: string;
  sender_name: string | null;
  receiver: string | null;
  receiver_type: string;
  receiver_name: string | null;
  /** Names as they were when the message was written (a message record is history). */
  care_team: string | null;
  patient_info: string | null;
  timezone: string | null;
  scheduled_at: Timestamp | null;
  sent_at: Timestamp | null;
  received_at: Timestamp | null;
  /** When it goes or came: scheduledAt or the send's instant for outbound, receivedAt for inbound. */
  date: Timestamp;
  external_id: string | null;
  error_message: string | null;
  starred: boolean;
  message_type: string;
  skip_event: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
}

/** 002's message record keys every message has, with PROD-SHAPES' (`careTeam`, `patientInfo` are names). */
export const MessageRecordFields = {
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Uuid),
  updatedBy: Nullable(Uuid),
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
  sendNow: Type.Boolean(),
  scheduledAt: Nullable(DateTime),
  sentAt: Nullable(DateTime),
  receivedAt: Nullable(DateTime),
  deletedAt: Nullable(DateTime),
  date: DateTime,
  careTeam: Nullable(Type.String()),
  patientInfo: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
  sender: Nullable(Uuid),
  senderType: Type.String({ description: 'USER, API_CLIENT, PATIENT, CONTACT, CARE_TEAM or UNKNOWN' }),
  senderName: Nullable(Type.String()),
  from: Type.String(),
  receiver: Nullable(Uuid),
  receiverType: Type.String(),
  receiverName: Nullable(Type.String()),
  to: Type.String(),
  direction: Type.Union([Type.Literal('IN'), Type.Literal('OUT')]),
  externalId: Nullable(Type.String()),
  starred: Type.Boolean(),
  errorMessage: Nullable(Type.String()),
  assignedBy: Nullable(Uuid),
  assignedByName: Nullable(Type.String()),
  hasHistory: Type.Boolean(),
  unrecognized: Type.Boolean(),
  messageType: Type.String(),
  attachmentsFromTemplate: Type.Array(JsonObject),
  skipEvent: Type.Boolean(),
};

/** A row's shared keys as the API shows them; each kind adds its own. */
export function messageRecordView(row: Selectable<MessageColumns> & { attachments_from_template?: unknown }) {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
    sendNow: row.direction === 'OUT' && row.scheduled_at === null,
    scheduledAt: row.scheduled_at,
    sentAt: row.sent_at,
    receivedAt: row.received_at,
    deletedAt: null,
    date: row.date,
    careTeam: row.care_team,
    patientInfo: row.patient_info,
    timezone: row.timezone,
    sender: row.sender,
    senderType: row.sender_type,
    senderName: row.sender_name,
    from: row.from_address,
    receiver: row.receiver,
    receiverType: row.receiver_type,
    receiverName: row.receiver_name,
    to: row.to_address,
    direction: row.direction,
    externalId: row.external_id,
    starred: row.starred,
    errorMessage: row.error_message,
    assignedBy: null,
    assignedByName: null,
    hasHistory: false,
    unrecognized: row.patient_id === null,
    messageType: row.message_type,
    attachmentsFromTemplate: (row.attachments_from_template ?? []) as Record<string, unknown>[],
    skipEvent: row.skip_event,
  };
}

/** Who an inbound message comes from, as `senderOf` found them; null: no patient or contact has its address or number. */
export type InboundSender = Awaited<ReturnType<typeof senderOf>>;

/**
 * The columns every inbound message record fills alike: on the sender's patient (none when
 * unrecognised), from the contact, else the patient, else UNKNOWN (by the name the channel
 * carried), to the care team; names as they were, received now. Each kind adds its status and own columns.
 */
export function inboundMessageFields(
  sender: InboundSender,
  message: InboundMessage,
  received: { careTeam: string | null; receivedAt: Date },
) {
  const patient = sender?.patient;
  return {
    patient_id: patient?.id ?? null,
    contact_id: sender?.contact?.id ?? null,
    direction: 'IN' as const,
    from_address: message.from,
    to_address: message.to,
    sender: sender?.contact?.id ?? patient?.id ?? null,
    sender_type: sender?.contact ? 'CONTACT' : patient ? 'PATIENT' : 'UNKNOWN',
    sender_name: sender?.contact?.name ?? (patient ? patientName(patient) : (message.fromName ?? null)),
    receiver: null,
    receiver_type: 'CARE_TEAM',
    receiver_name: null,
    care_team: received.careTeam,
    patient_info: patient ? patientName(patient) : null,
    timezone: patient?.timezone ?? null,
    scheduled_at: null,
    sent_at: null,
    received_at: received.receivedAt,
    date: received.receivedAt,
    external_id: message.externalId,
    error_message: null,
    starred: false,
    message_type: 'CARE_TEAM',
    skip_event: false,
  };
}

/**
 * The columns every outbound message record sent now fills alike: from the actor, to the
 * recipient (the contact, else the patient), names as they were, not yet sent. Each kind adds its
 * status and own columns.
 */
export function outboundMessageFields(
  actor: Pick<Actor, 'id' | 'type' | 'name'>,
  recipient: Recipient,
  message: { from: string; to: string; careTeam: string | null; date: Date },
) {
  const { patient, contact } = recipient;
  return {
    patient_id: patient.id,
    contact_id: contact?.id ?? null,
    direction: 'OUT' as const,
    from_address: message.from,
    to_address: message.to,
    sender: actor.id,
    sender_type: actor.type,
    sender_name: actor.name,
    receiver: contact?.id ?? patient.id,
    receiver_type: contact ? 'CONTACT' : 'PATIENT',
    receiver_name: contact ? contact.name : patientName(patient),
    care_team: message.careTeam,
    patient_info: patientName(patient),
    timezone: patient.timezone,
    scheduled_at: null,
    sent_at: null,
    received_at: null,
    date: message.date,
    external_id: null,
    error_message: null,
    starred: false,
    message_type: 'CARE_TEAM',
    skip_event: false,
  };
}

export type MessageTable = 'emails' | 'sms_messages';
/** Each message kind's event entity: its `<ENTITY>_STATUS_CHANGED` audit action and event. */
export type MessageEntity = 'EMAIL' | 'SMS';

/** Where a send or a provider's report takes a message. */
export interface StatusMove {
  status: string;
  externalId?: string;
  sentAt?: Date;
  errorMessage: string | null;
}

/**
 * Moves a message from the status it had to the move's, with its audit row, `<ENTITY>_UPDATED`
 * and `<ENTITY>_STATUS_CHANGED` (`{status, previousStatus}`); false when it moved meanwhile (the
 * update names the status it expects, so two reports never both move it).
 */
export async function moveMessageStatus(
  ctx: Context,
  table: MessageTable,
  entity: MessageEntity,
  row: Pick<MessageColumns, 'tenant_id' | 'id' | 'patient_id' | 'status'>,
  move: StatusMove,
): Promise<boolean> {
  return write(ctx, async (w: Work) => {
    const moved = await w.db
      .updateTable(table as 'emails')
      .set({
        status: move.status,
        error_message: move.errorMessage,
        ...(move.externalId !== undefined ? { external_id: move.externalId } : {}),
        ...(move.sentAt ? { sent_at: move.sentAt } : {}),
        ...w.updated(),
      })
      .where('tenant_id', '=', row.tenant_id)
      .where('id', '=', row.id)
      .where('status', '=', row.status)
      .returning('id')
      .executeTakeFirst();
    if (!moved) return false;
    w.changed({
      action: `${entity}_STATUS_CHANGED` as AuditAction,
      entityType: entity,
      entityId: row.id,
      patientId: row.patient_id,
      changedFields: ['status', ...(move.externalId !== undefined ? ['externalId', 'sentAt'] : []), 'errorMessage'],
    });
    if (move.status !== row.status) {
      w.emit({
        subtype: `${entity}_STATUS_CHANGED` as EventSubtype,
        recordId: row.id,
        patientId: row.patient_id,
        data: { status: move.status, previousStatus: row.status },
      });
    }
    return true;
  });
}

/** Notes why a send is still waiting (a failure that will be retried) on its record. */
export async function noteSendError(
  ctx: Context,
  table: MessageTable,
  row: Pick<MessageColumns, 'tenant_id' | 'id'>,
  message: string,
) {
  await write(ctx, async (w) => {
    await w.db
      .updateTable(table as 'emails')
      .set({ error_message: message, ...w.updated() })
      .where('tenant_id', '=', row.tenant_id)
      .where('id', '=', row.id)
      .execute();
  });
}

/**
 * A message area's part in a patient's delete and purge: its rows go with the patient (their key
 * cascades), and a purge also takes their copies out of the sandbox's outbox (each names its record).
 */
export function messagesOfPatient(table: 'emails' | 'sms_messages' | 'voice_calls' | 'faxes'): PatientData {
  return { tables: [table], purge: async (w, scope, patient) => void (await forgetSandboxCopies(w, scope, table, patient.id)) };
}

export async function forgetSandboxCopies(
  w: Work,
  scope: PatientScope,
  table: 'emails' | 'sms_messages' | 'voice_calls' | 'faxes',
  patientId: string,
): Promise<string[]> {
  const rows = await w.db
    .selectFrom(table)
    .select('id')
    .where('tenant_id', '=', scope.tenantId)
    .where('patient_id', '=', patientId)
    .execute();
  const ids = rows.map((row) => row.id);
  await forgetSandboxMessages(w.db, scope, { references: ids });
  return ids;
}
