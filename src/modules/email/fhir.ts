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
import { EMAIL_FILES } from './emails.ts';
import type { EmailStatus } from './schemas.ts';

/**
 * An email as a FHIR R4 Communication (base R4), one of the three sources of Communication with
 * chat and SMS, its attachments composed into the same statement. Each field's mapping is in
 * docs/fhir.md.
 */

export const EMAIL_ID_SYSTEM = 'https://cairn.health/fhir/sid/email-id';
/** The email's Message-ID, or the email provider's id of it. */
export const EMAIL_EXTERNAL_ID_SYSTEM = 'https://cairn.health/fhir/sid/email-external-id';

const channel = communicationChannel({ code: 'email', display: 'Email' }, { code: 'EMAILWRIT', display: 'email' });

/** Cairn's email statuses as FHIR's EventStatus: refused or failed, it was never sent (`not-done`). */
const STATUSES: Record<EmailStatus, string> = {
  SCHEDULED: 'preparation',
  ACCEPTED: 'in-progress',
  DELIVERED: 'completed',
  REJECTED: 'not-done',
  FAILED: 'not-done',
  UNRECOGNISED: 'completed',
};

type EmailRow = Row<'emails'> & { attachments: FileJson[] };

/** The body as it was written: plain text as a string, HTML (sanitized when stored) as an HTML attachment. */
function bodyOf(row: EmailRow) {
  if (!row.body) return [];
  if (row.body_type !== 'HTML') return [{ contentString: row.body }];
  return [{ contentAttachment: { contentType: 'text/html', data: Buffer.from(row.body).toString('base64') } }];
}

function communicationOf(row: EmailRow) {
  const recipient = partyOf(row.receiver_type, row.receiver, row.receiver_name ?? row.care_team);
  return {
    resourceType: 'Communication',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [
      { use: 'usual', system: EMAIL_ID_SYSTEM, value: row.id },
      ...(row.external_id ? [{ use: 'secondary', system: EMAIL_EXTERNAL_ID_SYSTEM, value: row.external_id }] : []),
    ],
    status: STATUSES[row.status as EmailStatus] ?? 'unknown',
    statusReason: row.error_message ? { text: row.error_message } : undefined,
    ...channel.elements,
    subject: reference('Patient', row.patient_id),
    topic: row.subject ? { text: row.subject } : undefined,
    sent: row.sent_at?.toISOString(),
    received: row.received_at?.toISOString(),
    recipient: recipient ? [recipient] : [],
    sender: partyOf(row.sender_type, row.sender, row.sender_name),
    payload: [...bodyOf(row), ...row.attachments.map((file) => ({ contentAttachment: attachmentOf(file) }))],
  };
}

/**
 * Communication from email: an instance's emails that have a patient (an unrecognised one, from an
 * address no patient or contact has, is read by no patient route either), searched by patient (the
 * email patient indexes), status and times sent and received. Drafts are not sent: not served.
 */
export const fhirEmailCommunication: FhirResource = {
  type: 'Communication',
  permission: 'EMAIL_READ',
  table: 'emails',
  instanceScoped: true,
  where: [sql<SqlBool>`r.patient_id IS NOT NULL`],
  patient: { column: 'patient_id' },
  logAs: 'COMMUNICATION',
  auditEntity: 'EMAIL',
  notFound: 'EMAIL_NOT_FOUND',
  columns: (tenantId) => [filesColumn(EMAIL_FILES, 'attachments')(tenantId)],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    sent: dateParam('sent', 'sent_at', 'instant'),
    received: dateParam('received', 'received_at', 'instant'),
    status: tokenParam('status', 'status', STATUSES, eventStatuses),
    ...channel.params,
  },
  toFhir: (row: EmailRow) => compact(communicationOf(row)),
};
