import type { Kysely } from 'kysely';
import { uuidv7 } from '../db/ids.ts';
import type { DB, Timestamp } from '../db/schema.ts';

/**
 * Holds on blob removals. A backup reads the file rows of its snapshot, then copies their blobs;
 * a file deleted meanwhile would lose its blob to its `files.remove` job before the copy reached
 * it. While a hold lasts, that job waits (JobDeferred) instead, so the snapshot's every row keeps
 * its bytes. A hold ends when its backup releases it, or at `held_until` if the backup died.
 */
export interface BlobHoldsTable {
  id: string;
  /** Who holds it, for an operator reading the table: `backup`. */
  reason: string;
  held_until: Timestamp;
}

declare module '../db/schema.ts' {
  interface DB {
    blob_holds: BlobHoldsTable;
  }
}

/** Holds removals until `until` (or the release); answers the hold's id. */
export async function holdBlobs(db: Kysely<DB>, reason: string, until: Date): Promise<string> {
  const id = uuidv7();
  await db.insertInto('blob_holds').values({ id, reason, held_until: until }).execute();
  return id;
}

export async function releaseBlobs(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('blob_holds').where('id', '=', id).execute();
}

/** When the last hold in force ends, or undefined when removals may go on. */
export async function blobsHeldUntil(db: Kysely<DB>, now: Date): Promise<Date | undefined> {
  const row = await db
    .selectFrom('blob_holds')
    .select((eb) => eb.fn.max('held_until').as('until'))
    .where('held_until', '>', now)
    .executeTakeFirst();
  return row?.until ? new Date(row.until as Date) : undefined;
}
