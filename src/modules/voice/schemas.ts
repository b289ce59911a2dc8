import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { MessageRecordFields } from '../../records/messages.ts';
import { DateTime, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';
import { LinkedFileEntry } from '../files/index.ts';

/** The wire contract of voice calls: 002 "Voice call", DECISIONS §8. */

export const callStatuses = ['QUEUED', 'RINGING', 'IN_PROGRESS', 'COMPLETED', 'BUSY', 'NO_ANSWER', 'FAILED', 'CANCELED'] as const;
export type CallStatus = (typeof callStatuses)[number];
const CallStatusSchema = Type.Enum(callStatuses);
const LegStatus = Nullable(Type.String({ description: 'One of the call statuses' }));

const { messageType: _messageType, ...recordFields } = MessageRecordFields;

/** 002: the message record's keys (without message, parts, messageType) and the call's own; `status` is the whole call's. */
export const VoiceCall = Type.Object({
  ...recordFields,
  status: CallStatusSchema,
  childCallSid: Nullable(Type.String()),
  parentCallStatus: LegStatus,
  childCallStatus: LegStatus,
  userPhone: Nullable(Type.String()),
  parentCallDuration: Nullable(Type.Integer({ description: 'Seconds' })),
  childCallDuration: Nullable(Type.Integer({ description: 'Seconds' })),
  recorded: Type.Boolean(),
  recordingDuration: Nullable(Type.Integer({ description: 'Seconds' })),
  recordingSid: Nullable(Type.String()),
  recordingUrl: Nullable(Type.String({ description: "A link to the recording's file (expires after 5 minutes)" })),
  recordingFile: Nullable(LinkedFileEntry),
  phoneId: Nullable(Uuid),
});
export type VoiceCallView = Static<typeof VoiceCall>;

export const CallParams = Type.Object({ ...InstanceParams.properties, voiceCallId: Uuid });
export const RecordingParams = Type.Object({ ...CallParams.properties, fileId: Uuid });

export const UnrecognizedQuery = Type.Object({
  ...PagingQuery,
  unrecognised: Type.Optional(
    Type.Boolean({
      description: 'true (default): calls that came from a number no patient or contact has; false: every call of the instance',
    }),
  ),
  assigned: Type.Optional(Type.Boolean({ description: 'Assigned to a patient since (true), or not (false)' })),
  date: Type.Optional({ ...DateTime, description: 'Calls at or after this instant' }),
});
export type UnrecognizedFilters = Omit<Static<typeof UnrecognizedQuery>, 'page' | 'size' | 'sort'>;

export const AssignInput = Type.Object({ patientId: Uuid });
