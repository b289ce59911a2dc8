import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { tryLockKey } from '../../db/locks.ts';
import type { DB, Row } from '../../db/schema.ts';
import type { Services } from '../../http/services.ts';
import { jobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import './tables.ts';

/**
 * The access log's hash chain. Records are never updated; a periodic job seals each tenant's new
 * ones in (time, id) order, at most SEAL_BATCH a seal: a seal's hash is the SHA-256 of the
 * previous seal's hash, its number and its records, every column. So a record changed, removed,
 * or added inside a sealed range breaks that seal, and a seal changed breaks the next one;
 * `cairn access-log verify <tenant>` walks the chain and names the first broken link. Someone
 * able to rewrite the whole chain is caught by comparing the newest hash verify prints with a copy
 * kept outside the database.
 */

/** The hash the first seal follows. */
export const GENESIS = '0'.repeat(64);
/**
 * Records younger than this are left for the next seal: a record takes its instant just before its
 * statement commits, and nodes' clocks differ a little, so the newest instants may still be filled in.
 */
export const SEAL_SETTLE_MS = 60_000;
const SEAL_BATCH = 10_000;

type AccessRow = Row<'access_log'>;
type Seal = Row<'access_log_seals'>;

/** A record as the chain hashes it: every column, in a fixed order. */
function line(row: AccessRow): string {
  return JSON.stringify([
    row.id,
    row.occurred_at.toISOString(),
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
  ]);
}

export function sealHash(previous: string, seq: number, rows: readonly AccessRow[]): string {
  const hash = createHash('sha256').update(`${previous}\n${seq}\n`);
  for (const row of rows) hash.update(`${line(row)}\n`);
  return hash.digest('hex');
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

function lastSeal(db: Kysely<DB>, tenantId: string): Promise<Seal | undefined> {
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
  let query = db.selectFrom('access_log').selectAll().where('tenant_id', '=', tenantId);
  if (from) query = query.where(sql<boolean>`(occurred_at, id) > (${from.through_at}, ${from.through_id})`);
  query =
    'through' in bound
      ? query.where(sql<boolean>`(occurred_at, id) <= (${bound.through.through_at}, ${bound.through.through_id})`)
      : query.where('occurred_at', '<', bound.before);
  return query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
}

/**
 * Seals the tenant's settled records, a seal per SEAL_BATCH; one sealer per tenant at a time (a
 * second one finds the lock taken and leaves). Answers the records sealed.
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
      await w.db
        .insertInto('access_log_seals')
        .values({
          tenant_id: tenantId,
          seq,
          through_at: through.occurred_at,
          through_id: through.id,
          records: rows.length,
          previous_hash: previous,
          hash: sealHash(previous, seq, rows),
          sealed_at: w.now,
        })
        .execute();
      return rows.length;
    });
    sealed += count;
    if (count < SEAL_BATCH) return sealed;
  }
}

/** What `verify` found: the first broken link, if any, and how far the chain reaches. */
export interface ChainReport {
  seals: number;
  records: number;
  /** The newest seal's hash: keep a copy elsewhere, and compare it at the next verify. */
  head: string;
  /** Records not yet sealed (younger than a seal's settle time, or waiting for the job). */
  unsealed: number;
  broken: { seq: number; reason: string } | null;
}

/** Walks the tenant's chain from its oldest seal, recomputing each seal from its records. */
export async function verifyChain(db: Kysely<DB>, tenantId: string): Promise<ChainReport> {
  const report: ChainReport = { seals: 0, records: 0, head: GENESIS, unsealed: 0, broken: null };
  let previous: Seal | undefined;
  for (let next = 0; ; ) {
    const seals = await sealsFrom(db, tenantId, next, 500);
    for (const seal of seals) {
      const broken = await checkSeal(db, tenantId, seal, previous);
      if (broken) {
        report.broken = { seq: seal.seq, reason: broken };
        return report;
      }
      report.seals += 1;
      report.records += seal.removed_at ? 0 : seal.records;
      report.head = seal.hash;
      previous = seal;
    }
    if (seals.length < 500) break;
    next = seals.at(-1)!.seq + 1;
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

/** Why `seal` does not follow `previous` or does not hold its records; null when it does. */
async function checkSeal(db: Kysely<DB>, tenantId: string, seal: Seal, previous: Seal | undefined): Promise<string | null> {
  if (previous && seal.seq !== previous.seq + 1) return `seal ${previous.seq + 1} is missing`;
  if (previous && seal.previous_hash !== previous.hash) return 'it does not follow the seal before it (a seal was changed)';
  if (seal.removed_at) {
    // Retention removed its records: its hash anchors what follows, and nothing of its range is left.
    if (previous && !previous.removed_at) return 'its records were removed while older ones were kept';
    const left = await recordsAfter(db, tenantId, undefined, { through: seal }, 1);
    return left.length > 0 ? 'a record is left in a range retention removed' : null;
  }
  if (!previous && seal.previous_hash !== GENESIS) return 'the first seal does not start the chain (seals were removed)';
  const rows = await recordsAfter(db, tenantId, previous, { through: seal }, seal.records + 1);
  if (rows.length !== seal.records) {
    return `it sealed ${seal.records} records and ${rows.length > seal.records ? 'more' : rows.length} are there (records were ${rows.length > seal.records ? 'added' : 'removed'})`;
  }
  if (sealHash(seal.previous_hash, seal.seq, rows) !== seal.hash)
    return 'its records differ from what was sealed (a record was changed)';
  return null;
}
