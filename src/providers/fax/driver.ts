import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { StatusReport } from '../channels.ts';
import type { ProviderScope } from '../slot.ts';

/** What every fax driver does (DECISIONS §8: fax statuses). */

export interface FaxFile {
  fileName: string;
  contentType: string;
  size: number;
  /** A link at this server's public address a vendor fetches it by (null without CAIRN_PUBLIC_URL). */
  url: string | null;
  /** The bytes, streamed from the blob store, for a driver that uploads them. */
  open(): Promise<Readable>;
}

export interface OutboundFax {
  /** Cairn's id of the fax: the sandbox's reference. */
  id: string;
  /** The patient the message is about, or null: the sandbox keeps it, so its outbox's answers name the patient in the access log. */
  patientId: string | null;
  from: string | null;
  to: string;
  subject: string | null;
  highQuality: boolean;
  files: FaxFile[];
  /** Where the vendor posts what becomes of it (`<public>/<tenant>/<instance>/providers/fax`), null when none can be given. */
  callbackBase: string | null;
}

export interface FaxSent {
  externalId: string;
  /** In DECISIONS §8's words (SENDING, usually), and the vendor's own word. */
  status: string;
  originalStatus: string | null;
}

/** A fax the vendor received for an instance number, its pages to be fetched. */
export interface FaxReceived {
  externalId: string;
  from: string;
  to: string;
  pages: number | null;
  /** Where the vendor keeps the document (a PDF), fetched by the driver. */
  contentUrl: string | null;
}

export interface FaxCallbacks {
  verify(request: { url: string; headers: IncomingHttpHeaders; params: Record<string, string>; body?: string }): Promise<boolean>;
  /** What the vendor posted: a report on a fax sent, a fax received, or nothing Cairn keeps. */
  read(body: string): { report: StatusReport & { originalStatus?: string } } | { received: FaxReceived } | null;
}

export interface FaxDriver {
  send(scope: ProviderScope, fax: OutboundFax): Promise<FaxSent>;
  /** A received fax's document, streamed from the vendor. */
  fetchDocument(url: string): Promise<Readable>;
  callbacks?: FaxCallbacks;
}

export interface FaxEnv {
  db: Kysely<DB>;
  clock: { now(): Date };
  config: Config;
}
