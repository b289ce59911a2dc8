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
  partyOf,
  reference,
  referenceParam,
  tokenParam,
} from '../../http/fhir.ts';
import { SMS_FILES } from './messages.ts';
import type { SmsStatus } from './schemas.ts';

/**
 * An SMS as a FHIR R4 Communication (base R4), one of the three sources of Communication with chat
 * and email, its attachments (MMS) composed into the same statement. Each field's mapping is in
 * docs/fhir.md.
 */

export const SMS_ID_SYSTEM = 'https://cairn.health/fhir/sid/sms-id';
/** The SMS vendor's id of the message (Twilio's MessageSid). */
export const SMS_EXTERNAL_ID_SYSTEM = 'https://cairn.health/fhir/sid/sms-external-id';

const channel = communicationChannel({ code: 'sms', display: 'SMS' }, { code: 'SMSWRIT', display: 'SMS message' });

/**
 * Cairn's SMS statuses as FHIR's EventStatus: one the carrier could not deliver had started
 * (`stopped`); one that could not be sent had not (`not-done`).
 */
const STATUSES: Record<SmsStatus, string> = {
  SCHEDULED: 'preparation',
  ACCEPTED: 'in-progress',
  SENT: 'in-progress',
  RECEIVED: 'completed',
  DELIVERED: 'completed',
  UNDELIVERED: 'stopped',
  FAILED: 'not-done',
  UNRECOGNISED: 'completed',
};

type SmsRow = Row<'sms_messages'> & { attachments: FileJson[] };

function communicationOf(row: SmsRow) {
  const recipient = partyOf(row.receiver_type, row.receiver, row.receiver_name ?? row.care_team);
  const sender = partyOf(row.sender_type, row.sender, row.sender_name);
  return {
    resourceType: 'Communication',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [
      { use: 'usual', system: SMS_ID_SYSTEM, value: row.id },
      ...(row.external_id ? [{ use: 'secondary', system: SMS_EXTERNAL_ID_SYSTEM, value: row.external_id }] : []),
    ],
    status: STATUSES[row.status as SmsStatus] ?? 'unknown',
    statusReason: row.error_message ? { text: row.error_message } : undefined,
    ...channel.elements,
    subject: reference('Patient', row.patient_id),
    sent: row.sent_at?.toISOString(),
    received: row.received_at?.toISOString(),
    recipient: recipient ? [recipient] : [],
    sender,
    payload: [
      ...(row.message ? [{ contentString: row.message }] : []),
      ...row.attachments.map((file) => ({ contentAttachment: attachmentOf(file) })),
    ],
  };
}

/**
 * Communication from SMS: an instance's SMS that have a patient (an unrecognised one, from a
 * number no patient or contact has, is read by no patient route either), searched by patient (the
 * SMS patient indexes), status and times sent and received.
 */
export const fhirSmsCommunication: FhirResource = {
  type: 'Communication',
  permission: 'SMS_READ',
  table: 'sms_messages',
  instanceScoped: true,
  where: [sql<SqlBool>`r.patient_id IS NOT NULL`],
  patient: { column: 'patient_id' },
  logAs: 'COMMUNICATION',
  auditEntity: 'SMS',
  notFound: 'SMS_NOT_FOUND',
  columns: (tenantId) => [filesColumn(SMS_FILES, 'attachments')(tenantId)],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    sent: dateParam('sent', 'sent_at', 'instant'),
    received: dateParam('received', 'received_at', 'instant'),
    status: tokenParam('status', 'status', STATUSES, eventStatuses),
    ...channel.params,
  },
  toFhir: (row: SmsRow) => compact(communicationOf(row)),
};
