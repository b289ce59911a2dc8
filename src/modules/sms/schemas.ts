import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { MessageRecordFields } from '../../records/messages.ts';
import { CsvList, DateTime, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';
import { LinkedFileEntry } from '../files/index.ts';

/** The wire contract of SMS: 002 "Message record", PROD-SHAPES' SMS keys, DECISIONS §7 and §8. */

export const smsStatuses = [
  'SCHEDULED',
  'ACCEPTED',
  'SENT',
  'RECEIVED',
  'DELIVERED',
  'UNDELIVERED',
  'FAILED',
  'UNRECOGNISED',
] as const;
export type SmsStatus = (typeof smsStatuses)[number];
const SmsStatusSchema = Type.Enum(smsStatuses, {
  description:
    'ACCEPTED (the provider has it), SENT (it left for the carrier), DELIVERED, UNDELIVERED (the carrier could not deliver it), FAILED, RECEIVED (inbound, its patient found), UNRECOGNISED (inbound from a number no patient or contact has); SCHEDULED is not used by the communication send',
});

/** `{patientId}`: a patient's id, or a contact's (then the contact's messages). */
export const SmsListParams = Type.Object({ ...InstanceParams.properties, patientId: Uuid });
export const SmsParams = Type.Object({ ...SmsListParams.properties, smsId: Uuid });

export const SmsRecord = Type.Object({
  ...MessageRecordFields,
  message: Type.String(),
  parts: Type.Integer({ description: 'Segments, by the GSM-7 and UCS-2 rules (160/153 or 70/67 characters)' }),
  status: SmsStatusSchema,
  phoneId: Nullable(Uuid),
  attachments: Type.Array(LinkedFileEntry),
});
export type SmsView = Static<typeof SmsRecord>;

export const SmsListQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(CsvList(SmsStatusSchema, { maxItems: 8, description: 'Any of these statuses' })),
  direction: Type.Optional(MessageRecordFields.direction),
  dateAfter: Type.Optional(DateTime),
  dateBefore: Type.Optional(DateTime),
});
export type SmsListFilters = Omit<Static<typeof SmsListQuery>, 'page' | 'size' | 'sort'>;
