import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { channelNames } from '../../providers/channels.ts';
import { DateTime, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';

/** The wire contract of the sandbox's routes (issue 16: outbox, deliver, bounce, fail, inbound). */

const ChannelName = Type.Enum(channelNames, { description: 'SMS, EMAIL, VOICE_CALL or FAX' });
const SandboxStatus = Type.Enum(['ACCEPTED', 'DELIVERED', 'BOUNCED', 'FAILED'] as const, {
  description: 'ACCEPTED until the sandbox is told what became of the message',
});

export const SandboxMessage = Type.Object({
  id: Uuid,
  channel: ChannelName,
  /** Cairn's id of the record sent (an email's). */
  reference: Nullable(Type.String()),
  /** The patient the message is about, as the sending area knew it. */
  patientId: Nullable(Uuid),
  from: Type.String(),
  to: Type.String(),
  subject: Nullable(Type.String()),
  body: Nullable(Type.String()),
  attachmentNames: Type.Array(Type.String()),
  status: SandboxStatus,
  error: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type SandboxMessageView = Static<typeof SandboxMessage>;

export const OutboxQuery = Type.Object({
  ...PagingQuery,
  channel: Type.Optional(ChannelName),
  status: Type.Optional(SandboxStatus),
});

export const MessageParams = Type.Object({ ...InstanceParams.properties, messageId: Uuid });

export const SettleBody = Type.Object({
  error: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'What the provider would say (bounce, fail)' })),
});

/** A message as if it came in through the channel's provider. */
export const InboundBody = Type.Object({
  channel: ChannelName,
  from: Type.String({ minLength: 1, maxLength: 320, description: 'An email address (EMAIL) or an E.164 number' }),
  to: Type.String({ minLength: 1, maxLength: 320, description: "The instance's address or number it was sent to" }),
  message: Type.Optional(Type.String({ maxLength: 100_000 })),
  subject: Type.Optional(Type.String({ maxLength: 998 })),
  recorded: Type.Optional(Type.Boolean({ description: 'VOICE_CALL: the call left a recording' })),
});
export type InboundInput = Static<typeof InboundBody>;

export const InboundResult = Type.Object({
  channel: ChannelName,
  /** The record the channel's area stored. */
  id: Uuid,
  patientId: Nullable(Uuid),
  status: Type.String(),
});
