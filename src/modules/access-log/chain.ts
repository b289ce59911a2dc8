import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { tryLockKey } from '../../db/locks.ts';
import type { DB, Row } from '../../db/schema.ts';
import type { Services } from '../../http/services.ts';
import { jobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import type { Removal } from './tables.ts';
import './tables.ts';

/**
 * The access log's hash chain. Records are never updated; a periodic job seals each tenant's new
 * ones in (time, id) order, at most SEAL_BATCH a seal: a seal's hash is the SHA-256 of the
 * previous seal's hash, its number and its records, every column as stored. So a record changed,
 * removed, or added inside a sealed range breaks that seal, and a seal changed breaks the next
 * one. Records go only through a retention removal, itself a seal of the chain (retention.ts), so
 * seals missing at the chain's start with none recording their removal are a break too. Each new
 * seal's hash is published outside the database (an ACCESS_LOG_SEALED event, which webhooks
 * deliver, and a line of the server's log): `cairn access-log verify <tenant> --hash <published>`
 * walks the chain, names the first broken link, and finds the published hash in it, so even the
 * newest seals deleted with their records are caught.
 */

/** The hash the first seal follows. */
export const GENESIS = '0'.repeat(64);
/**
 * Records younger than this are left for the next seal: a record takes its instant just before its
 * statement commits, and nodes' clocks differ a little, so the newest instants may still be filled in.
 */
export const SEAL_SETTLE_MS = 60_000;
const SEAL_BATCH = 10_000;
/** How a seal made now hashes its records (tables.ts `format`). */
export const SEAL_FORMAT = 2;

/** A record as the chain reads it: its row, and its time as stored (microseconds), as text. */
type AccessRow = Row<'access_log'> & { occurred_text: string };
type Seal = Row<'access_log_seals'>;

/** A record as a seal of `format` hashes it: every column, in a fixed order; format 2 as stored. */
function line(row: AccessRow, format: number): string {
  const common = [
    row.id,
    format === 1 ? row.occurred_at.toISOString() : row.occurred_text,
    row.instance_id,
    row.actor_type,
    row.actor_id,
    row.actor_name,
    row.on_behalf_of,
    row.client_address,
    row.request_id,
    row.operation,
    row.resource_type,
    row.patient_ids,
    row.record_ids,
    row.outcome,
  ];
  return JSON.stringify(format === 1 ? common : [...common, row.caller_request_id, row.matched]);
}

/**
 * Why a record cannot be one a format-1 seal hashed, whose lines held times in milliseconds and no
 * later column: Cairn wrote times in whole milliseconds, so anything finer was written since.
 */
function notFormatOne(row: AccessRow): string | null {
  if (!row.occurred_text.endsWith('000Z')) return "a record's time was changed";
  if (row.caller_request_id !== null || row.matched !== null) return 'a record was changed';
  return null;
}

export function sealHash(previous: string, seq: number, rows: readonly AccessRow[], format = SEAL_FORMAT): string {
  const hash = createHash('sha256').update(`${previous}\n${seq}\n`);
  for (const row of rows) hash.update(`${line(row, format)}\n`);
  return hash.digest('hex');
}

/** A retention seal's hash: what it removed, with which retention, and when, after the seal before it. */
export function retentionHash(previous: string, seq: number, removal: Removal, sealedAt: Date): string {
  const { anchor, throughAt, throughId, records, retentionDays } = removal;
  return createHash('sha256')
    .update(`${previous}\n${seq}\nRETENTION\n`)
    .update(JSON.stringify([anchor, throughAt, throughId, records, retentionDays, sealedAt.toISOString()]))
    .digest('hex');
}

/** The tenant's seals from `seq` on, oldest first. */
function sealsFrom(db: Kysely<DB>, tenantId: string, seq: number, limit: number): Promise<Seal[]> {
  return db
    .selectFrom('access_log_seals')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('seq', '>=', seq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export function lastSeal(db: Kysely<DB>, tenantId: string): Promise<Seal | undefined> {
  return db
    .selectFrom('access_log_seals')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Records after `from` (exclusive) and up to `through` (inclusive) or before `before`, in chain order. */
function recordsAfter(
  db: Kysely<DB>,
  tenantId: string,
  from: Pick<Seal, 'through_at' | 'through_id'> | undefined,
  bound: { through: Pick<Seal, 'through_at' | 'through_id'> } | { before: Date },
  limit: number,
): Promise<AccessRow[]> {
  let query = db
    .selectFrom('access_log')
    .selectAll()
    // The time as stored, to the microsecond: a Date would hold milliseconds only.
    .select(sql<string>`to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('occurred_text'))
    .where('tenant_id', '=', tenantId);
  if (from) query = query.where(sql<boolean>`(occurred_at, id) > (${from.through_at}, ${from.through_id})`);
  query =
    'through' in bound
      ? query.where(sql<boolean>`(occurred_at, id) <= (${bound.through.through_at}, ${bound.through.through_id})`)
      : query.where('occurred_at', '<', bound.before);
  return query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
}

/**
 * Seals the tenant's settled records, a seal per SEAL_BATCH; one sealer per tenant at a time (a
 * second one finds the lock taken and leaves). Each seal publishes its hash: an ACCESS_LOG_SEALED
 * event in its transaction, and a line of the log once committed. Answers the records sealed.
 */
export async function sealTenant(services: Services, tenantId: string): Promise<number> {
  const ctx = await jobContext(services, tenantId);
  if (!ctx) return 0;
  let sealed = 0;
  for (;;) {
    const count = await write(ctx, async (w) => {
      if (!(await tryLockKey(w.db, `${tenantId}/access-log/seal`))) return 0;
      const last = await lastSeal(w.db, tenantId);
      const before = new Date(w.now.getTime() - SEAL_SETTLE_MS);
      const rows = await recordsAfter(w.db, tenantId, last, { before }, SEAL_BATCH);
      const through = rows.at(-1);
      if (!through) return 0;
      const seq = (last?.seq ?? 0) + 1;
      const previous = last?.hash ?? GENESIS;
      const hash = sealHash(previous, seq, rows);
      // A retention removal may have taken the sequence number meanwhile (its function locks the
      // newest seal, not this lock): then nothing is sealed now, and the next run seals after it.
      const inserted = await w.db
        .insertInto('access_log_seals')
        .values({
          tenant_id: tenantId,
          seq,
          through_at: through.occurred_at,
          through_id: through.id,
          records: rows.length,
          previous_hash: previous,
          hash,
          sealed_at: w.now,
          format: SEAL_FORMAT,
        })
        .onConflict((conflict) => conflict.columns(['tenant_id', 'seq']).doNothing())
        .returning('seq')
        .executeTakeFirst();
      if (!inserted) return 0;
      publish(services, w, tenantId, { seq, hash, previousHash: previous, records: rows.length });
      return rows.length;
    });
    sealed += count;
    if (count < SEAL_BATCH) return sealed;
  }
}

/**
 * A new seal's hash leaves the database twice: an event webhooks deliver (ids and hashes only) and
 * a line of the server's log, so a copy of the newest hash outlives anyone who rewrites the chain.
 */
export function publish(
  services: Services,
  w: Parameters<Parameters<typeof write>[1]>[0],
  tenantId: string,
  seal: { seq: number; hash: string; previousHash: string; records: number; kind?: 'RETENTION' },
): void {
  w.emit({ subtype: 'ACCESS_LOG_SEALED', recordId: tenantId, data: { ...seal, kind: seal.kind ?? 'RECORDS' } });
  w.afterCommit(() =>
    services.log.info({ tenantId, seq: seal.seq, hash: seal.hash, kind: seal.kind ?? 'RECORDS' }, 'access log sealed'),
  );
}

/** What `verify` found: the first broken link, if any, and how far the chain reaches. */
export interface ChainReport {
  seals: number;
  records: number;
  /** The newest seal's hash: keep a copy elsewhere, and compare it at the next verify. */
  head: string;
  /** Records not yet sealed (younger than a seal's settle time, or waiting for the job). */
  unsealed: number;
  /** Retention removals the chain records. */
  removals: number;
  broken: { seq: number; reason: string } | null;
}

export interface VerifyOptions {
  /** The time now: a removal dated later is not one. */
  now: Date;
  /** The retention in force: a removal that kept less is a break. */
  retentionDays: number;
  /** A hash published earlier (the event, the log): it must be in the chain. */
  publishedHash?: string | undefined;
}

/** Walks the tenant's chain from its oldest seal, recomputing each seal from its records. */
export async function verifyChain(db: Kysely<DB>, tenantId: string, options: VerifyOptions): Promise<ChainReport> {
  const report: ChainReport = { seals: 0, records: 0, head: GENESIS, unsealed: 0, removals: 0, broken: null };
  let first: Seal | undefined;
  let previous: Seal | undefined;
  /** The first seal is a removal's anchor: a retention seal must name it. */
  let anchorJustified = false;
  let published = options.publishedHash === undefined;
  const fail = (seq: number, reason: string) => {
    report.broken = { seq, reason };
    return report;
  };
  for (let next = 0; ; ) {
    const seals = await sealsFrom(db, tenantId, next, 500);
    for (const seal of seals) {
      first ??= seal;
      const broken =
        seal.kind === 'RETENTION'
          ? checkRemoval(seal, previous, first, options)
          : await checkSeal(db, tenantId, seal, previous, first);
      if (broken) return fail(seal.seq, broken);
      if (seal.kind === 'RETENTION') {
        report.removals += 1;
        if (first.removed_at && seal.removal?.anchor === first.seq) anchorJustified = true;
      }
      report.seals += 1;
      report.records += seal.removed_at ? 0 : seal.records;
      report.head = seal.hash;
      if (seal.hash === options.publishedHash) published = true;
      previous = seal;
    }
    if (seals.length < 500) break;
    next = seals.at(-1)!.seq + 1;
  }
  if (first?.removed_at && !anchorJustified) {
    return fail(first.seq, 'the seals before it and their records were removed, and no retention removal in the chain says so');
  }
  if (!published) {
    return fail(
      (previous?.seq ?? 0) + 1,
      `the published hash ${options.publishedHash} is not in the chain (its seal, and the records it sealed, were removed or rewritten)`,
    );
  }
  const { unsealed } = await db
    .selectFrom('access_log')
    .select((eb) => eb.fn.countAll<number>().as('unsealed'))
    .where('tenant_id', '=', tenantId)
    .$if(previous !== undefined, (q) =>
      q.where(sql<boolean>`(occurred_at, id) > (${previous!.through_at}, ${previous!.through_id})`),
    )
    .executeTakeFirstOrThrow();
  report.unsealed = Number(unsealed);
  return report;
}

/** Why `seal` breaks the link from `previous`; null when it follows it. */
function checkLink(seal: Seal, previous: Seal | undefined): string | null {
  if (previous && seal.seq !== previous.seq + 1) return `seal ${previous.seq + 1} is missing`;
  if (previous && seal.previous_hash !== previous.hash) return 'it does not follow the seal before it (a seal was changed)';
  return null;
}

/** Why a retention seal is not a valid removal; null when it is. */
function checkRemoval(seal: Seal, previous: Seal | undefined, first: Seal, options: VerifyOptions): string | null {
  const link = checkLink(seal, previous);
  if (link) return link;
  const removal = seal.removal;
  if (!previous || !removal) return 'a retention seal records no removal';
  if (retentionHash(seal.previous_hash, seal.seq, removal, seal.sealed_at) !== seal.hash)
    return 'its removal differs from what was sealed (a seal was changed)';
  if (removal.anchor > first.seq) return `it records a removal through seal ${removal.anchor}, which is still there`;
  if (removal.anchor === first.seq && !first.removed_at)
    return `it records a removal through seal ${removal.anchor}, which is still there`;
  if (removal.retentionDays < options.retentionDays)
    return `it removed records kept ${removal.retentionDays} days, less than the retention of ${options.retentionDays}`;
  if (new Date(removal.throughAt).getTime() >= seal.sealed_at.getTime() - removal.retentionDays * 86_400_000)
    return 'it removed records younger than its retention';
  if (seal.sealed_at.getTime() > options.now.getTime() + SEAL_SETTLE_MS) return 'it is dated in the future';
  return null;
}

/** Why `seal` does not follow `previous` or does not hold its records; null when it does. */
async function checkSeal(
  db: Kysely<DB>,
  tenantId: string,
  seal: Seal,
  previous: Seal | undefined,
  first: Seal,
): Promise<string | null> {
  const link = checkLink(seal, previous);
  if (link) return link;
  if (seal.removed_at) {
    // Retention removed its records: its hash anchors what follows, and nothing of its range is left.
    if (seal !== first) return 'its records were removed while older ones were kept';
    const left = await recordsAfter(db, tenantId, undefined, { through: seal }, 1);
    return left.length > 0 ? 'a record is left in a range retention removed' : null;
  }
  if (!previous && seal.previous_hash !== GENESIS) return 'the first seal does not start the chain (seals were removed)';
  const rows = await recordsAfter(db, tenantId, previous, { through: seal }, seal.records + 1);
  if (rows.length !== seal.records) {
    return `it sealed ${seal.records} records and ${rows.length > seal.records ? 'more' : rows.length} are there (records were ${rows.length > seal.records ? 'added' : 'removed'})`;
  }
  if (seal.format === 1) {
    for (const row of rows) {
      const changed = notFormatOne(row);
      if (changed) return changed;
    }
  }
  if (sealHash(seal.previous_hash, seal.seq, rows, seal.format) !== seal.hash)
    return 'its records differ from what was sealed (a record was changed)';
  return null;
}
