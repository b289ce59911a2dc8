import { type Static, Type } from 'typebox';
import { uploadForm } from '../../http/request-bodies.ts';
import { E164, Email, InstanceParams, JsonObject, Uuid } from '../../wire/schemas.ts';

/** The wire contract of the two-step communication send (002 "Communications", DECISIONS §8). */

export const communicationChannels = ['SMS', 'EMAIL', 'VOICE_CALL'] as const;
export type CommunicationChannel = (typeof communicationChannels)[number];

export const CommunicationInput = Type.Object({
  channel: Type.Enum(communicationChannels, { description: 'SMS, EMAIL or VOICE_CALL' }),
  patientContactId: { ...Uuid, description: "A patient's id, or a contact's of a patient" },
  instancePhoneId: Type.Optional({
    ...Uuid,
    description:
      "SMS and VOICE_CALL: the instance phone to use (formation instancePhones), one whose capabilities include the channel; the formation's default when absent",
  }),
  patientContactPhoneNumber: Type.Optional({
    ...E164,
    description: "SMS and VOICE_CALL: the number to reach; the patient's (or contact's) phone when absent",
  }),
  patientContactEmail: Type.Optional({
    ...Email,
    description: "EMAIL: the address to write to; the patient's (or contact's) when absent",
  }),
});
export type CommunicationInputBody = Static<typeof CommunicationInput>;

export const CommunicationAnswer = Type.Object({
  communicationId: Type.String({ description: 'Opaque, signed and URL-safe: the request encoded; nothing is stored' }),
});

export const MessageParams = Type.Object({
  ...InstanceParams.properties,
  communicationId: Type.String({ minLength: 1, maxLength: 2000 }),
});

/** A message's JSON body: each channel reads its own fields (DECISIONS §10: others are ignored). */
export const MessageInput = Type.Object({
  message: Type.Optional(Type.String({ maxLength: 100_000 })),
  subject: Type.Optional(Type.String({ maxLength: 998 })),
  secure: Type.Optional(Type.Boolean()),
  recorded: Type.Optional(Type.Boolean()),
  attachmentsFromTemplate: Type.Optional(Type.Array(JsonObject, { maxItems: 20 })),
});
export type MessageInputBody = Static<typeof MessageInput>;

/** The same fields as a multipart form (text parts; `secure` as `true`), with files in `attachmentsAsFiles` parts. */
export const MessageForm = uploadForm('attachmentsAsFiles', 'Files to send (SMS, EMAIL), one part each', {
  message: MessageInput.properties.message,
  subject: MessageInput.properties.subject,
  secure: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});
