import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { InboundMessage, StatusReport } from '../channels.ts';
import type { ProviderScope } from '../slot.ts';

/** What every voice driver does (DECISIONS §8: voice call statuses). */

/**
 * A call placed for a care-team member: the member's phone rings first (the parent call); once
 * answered, the patient's is dialled from the instance phone (the child call), recorded if asked.
 */
export interface OutboundCall {
  /** Cairn's id of the call: the sandbox's reference. */
  id: string;
  /** The patient the message is about, or null: the sandbox keeps it, so its outbox's answers name the patient in the access log. */
  patientId: string | null;
  /** The instance phone both legs show (E.164). */
  from: string;
  userPhone: string;
  to: string;
  record: boolean;
  /** Where the vendor posts what happens (`<public>/<tenant>/<instance>/providers/voice`), null when none can be given. */
  callbackBase: string | null;
}

export interface CallPlaced {
  externalId: string;
  /** QUEUED, RINGING, ... in DECISIONS §8's words. */
  status: string;
}

/** A recording the vendor made of a call, to be fetched. */
export interface RecordingReport {
  /** The vendor's id of the call (the parent's, for an outbound call). */
  externalId: string;
  recordingSid: string;
  url: string;
  durationSeconds: number;
}

export interface VoiceCallbacks {
  verify(request: { url: string; headers: IncomingHttpHeaders; params: Record<string, string> }): boolean;
  /** A call to an instance phone. */
  inbound(params: Record<string, string>): InboundMessage;
  /** What the vendor should do with an inbound call: take a message (voicemail), its recording reported back. */
  answerInbound(callbackBase: string): { contentType: string; body: string };
  /** A leg's progress; `details.leg` is parent or child, with `duration` (s) and `childCallSid` when the vendor says them. */
  status(params: Record<string, string>): StatusReport;
  recording(params: Record<string, string>): RecordingReport;
  answer: { contentType: string; body: string };
}

export interface VoiceDriver {
  /** Places a call, or throws a ProviderError. */
  call(scope: ProviderScope, call: OutboundCall): Promise<CallPlaced>;
  /** A recording's bytes, streamed from where the vendor keeps it. */
  fetchRecording(url: string): Promise<Readable>;
  callbacks?: VoiceCallbacks;
}

export interface VoiceEnv {
  db: Kysely<DB>;
  clock: { now(): Date };
  config: Config;
}
