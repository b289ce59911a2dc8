import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { InboundMessage, StatusReport } from '../channels.ts';
import type { ProviderScope } from '../slot.ts';

/** What every SMS driver does, whatever carries the message (DECISIONS §8: SMS statuses). */

export interface OutboundSms {
  /** Cairn's id of the message: the sandbox's reference. */
  id: string;
  /** The patient the message is about, or null: the sandbox keeps it, so its outbox's answers name the patient in the access log. */
  patientId: string | null;
  /** The instance phone it goes from (E.164). */
  from: string;
  to: string;
  body: string;
  /** Its files (MMS): their names, and links at this server's public address for a vendor to fetch (null without CAIRN_PUBLIC_URL). */
  attachments: { fileName: string; url: string | null }[];
  /** Where the vendor posts its delivery reports (`<public>/<tenant>/<instance>/providers/sms`), null when none can be given. */
  callbackBase: string | null;
}

export interface SmsSent {
  externalId: string;
  /** In DECISIONS §8's words: ACCEPTED (queued there), SENT, DELIVERED. */
  status: string;
}

/** What a vendor's form posts mean: an inbound message, or a report on one sent. */
export interface SmsCallbacks {
  verify(request: { url: string; headers: import('node:http').IncomingHttpHeaders; params: Record<string, string> }): boolean;
  inbound(params: Record<string, string>): InboundMessage & { mediaUrls: string[] };
  status(params: Record<string, string>): StatusReport;
  /** What to answer the vendor (Twilio wants TwiML). */
  answer: { contentType: string; body: string };
}

export interface SmsDriver {
  /** Sends, or throws a ProviderError (permanent: the message is FAILED at once; otherwise retried). */
  send(scope: ProviderScope, sms: OutboundSms): Promise<SmsSent>;
  /** The vendor's callbacks, when it makes any. */
  callbacks?: SmsCallbacks;
}

export interface SmsEnv {
  db: Kysely<DB>;
  clock: { now(): Date };
  config: Config;
}
