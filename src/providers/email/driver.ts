import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { ProviderScope } from '../slot.ts';

/** What every email driver does, whatever carries the message. */

export interface Address {
  address: string;
  name?: string | null;
}

export interface EmailAttachment {
  fileName: string;
  contentType: string;
  /** The bytes, streamed from the blob store when the driver reads them. */
  open(): Promise<Readable>;
}

export interface OutboundEmail {
  /** Cairn's id of the email: its Message-ID, and the sandbox's reference. */
  id: string;
  /** The patient the message is about, or null: the sandbox keeps it, so its outbox's answers name the patient in the access log. */
  patientId: string | null;
  from: Address;
  to: Address;
  subject: string;
  text: string | null;
  html: string | null;
  attachments: EmailAttachment[];
}

/** What a driver answers once it has the message: its id there, and how far it got. */
export interface Sent {
  externalId: string;
  /** ACCEPTED: the provider will report later (the sandbox); DELIVERED: the relay took it (SMTP has no later word). */
  status: 'ACCEPTED' | 'DELIVERED';
}

export interface EmailDriver {
  /** The address emails come from, as configured. */
  readonly from: Address;
  /** The Standard Webhooks secret (`whsec_…`) that signs inbound emails posted to Cairn; null when none is set. */
  readonly inboundSecret: string | null;
  /** Sends, or throws a ProviderError (permanent: REJECTED at once; otherwise retried). */
  send(scope: ProviderScope, email: OutboundEmail): Promise<Sent>;
  close?(): unknown;
}

/** What email drivers use of the app: the database and clock (the sandbox), the configuration (where a tenant's relay may be). */
export interface EmailEnv {
  db: Kysely<DB>;
  clock: { now(): Date };
  config: Config;
}
