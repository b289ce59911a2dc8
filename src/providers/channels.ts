import type { Channel, ProviderScope } from './slot.ts';

/**
 * What providers report back, whatever the vendor: a message that came in (an SMS, an email, a
 * call, a fax) and what became of one sent. The area that owns a channel declares on its `Area`
 * what to do with each (`Area.channels`), so the sandbox's routes, a vendor's signed callbacks and
 * the CLI all reach the same code.
 */

/** The channels of 002 (the sandbox's inbound route takes these names, DECISIONS §8). */
export const channelNames = ['SMS', 'EMAIL', 'VOICE_CALL', 'FAX'] as const;
export type ChannelName = (typeof channelNames)[number];

export interface InboundMessage {
  /** The sender's address (an email address, an E.164 number). */
  from: string;
  /** The name it came with, when the channel carries one (an email's From). */
  fromName?: string | null;
  to: string;
  /** The text (an SMS's, an email's plain body). */
  message?: string | null;
  /** An email's HTML body (sanitized by the channel before it is stored). */
  html?: string | null;
  subject?: string | null;
  /** A voice call left a recording. */
  recorded?: boolean;
  /** Where the vendor keeps that recording (fetched by the channel's driver). */
  recordingUrl?: string | null;
  /** A fax's document: where the vendor keeps it (fetched by the channel's driver). */
  documentUrl?: string | null;
  /** How far it got, in the channel's words, when the vendor says (a call still going on is IN_PROGRESS). */
  status?: string;
  /** The provider's id of the message. */
  externalId: string;
}

/** A provider's word on a message it was given, by the id it answered with. */
export interface StatusReport {
  externalId: string;
  /** In the channel's own words (an SMS's UNDELIVERED, a call's NO_ANSWER): its driver translates the vendor's. */
  status: string;
  error?: string | null;
  /** What else the vendor said that the channel keeps (a call's duration, a fax's page count). */
  details?: Record<string, unknown>;
}

/** What the sandbox can be told of a message it holds. */
export type SandboxOutcome = 'deliver' | 'bounce' | 'fail';

/** A message the channel's area stored from an inbound one. */
export interface Received {
  id: string;
  patientId: string | null;
  status: string;
}

export interface ChannelHandlers<Env> {
  /** The provider slot whose drivers carry the channel. */
  slot: Channel;
  /** Stores an inbound message (on the patient it comes from, or unrecognised). */
  receive?(env: Env, scope: ProviderScope, message: InboundMessage): Promise<Received>;
  /** Moves a sent message's status; false when no message has that provider id. */
  report?(env: Env, scope: ProviderScope, report: StatusReport): Promise<boolean>;
  /** What the sandbox's deliver, bounce and fail mean in the channel's words (an email bounced is REJECTED). */
  sandbox?: Record<SandboxOutcome, string>;
}

/**
 * A provider's refusal or failure. `permanent`: sending again cannot help (an address the
 * receiving server does not know), so the message is REJECTED at once; otherwise the job queue
 * retries it. The message may name addresses: it is stored on the record, never logged.
 */
export class ProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
