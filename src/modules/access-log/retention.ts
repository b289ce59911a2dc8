import { sql } from 'kysely';
import { accessRow } from '../../events/access.ts';
import type { Services } from '../../http/services.ts';
import { jobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { lastSeal, publish, retentionHash } from './chain.ts';
import type { Removal } from './tables.ts';
import './tables.ts';

/** Seals removed in one removal (each holds up to 10,000 records). */
const SEALS_PER_REMOVAL = 20;

/** The record a removal writes: its operation. */
export const RETENTION_OPERATION = 'access-log.retention';

/**
 * Removes the tenant's records older than its retention, whole seals at a time, so the chain still
 * verifies: the newest removed seal stays (marked removed) as the anchor of what follows, and the
 * removal is a seal of the chain (RETENTION), published as every seal is. The removal runs in
 * `cairn_access_log_remove` (migration 0041), with the rights of the role that migrates: the role
 * Cairn serves with may not delete the log's rows. It is one statement, alone in its transaction
 * (on Citus a transaction may not reach a shard as two roles), and it checks what was read before
 * it: a seal made meanwhile makes it fail (40001 or 23505), and this run stops there for the
 * tenant; the next run removes. It also writes the removal's
 * own record (`recordIds`: `through-seal:<n>`, `through:<instant>`, `records:<count>`,
 * `retention-days:<days>`). Answers the records removed.
 */
export async function removeExpired(services: Services, tenantId: string, retentionDays: number): Promise<number> {
  const ctx = await jobContext(services, tenantId);
  if (!ctx) return 0;
  const { db } = services;
  let removed = 0;
  for (;;) {
    const now = services.clock.now();
    const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
    const seals = await db
      .selectFrom('access_log_seals')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', 'RECORDS')
      .where('removed_at', 'is', null)
      .where('through_at', '<', cutoff)
      .orderBy('seq')
      .limit(SEALS_PER_REMOVAL)
      .execute();
    const through = seals.at(-1);
    const newest = await lastSeal(db, tenantId);
    if (!through || !newest) return removed;
    const records = seals.reduce((sum, seal) => sum + seal.records, 0);
    const removal: Removal = {
      anchor: through.seq,
      throughAt: through.through_at.toISOString(),
      throughId: through.through_id,
      records,
      retentionDays,
    };
    const seq = newest.seq + 1;
    const hash = retentionHash(newest.hash, seq, removal, now);
    const record = accessRow({
      tenantId,
      instanceId: null,
      actor: { type: 'SYSTEM', id: null, name: `SYSTEM:${RETENTION_OPERATION}`, onBehalfOf: null },
      at: now,
      clientAddress: null,
      requestId: null,
      operation: RETENTION_OPERATION,
      resourceType: 'ACCESS_LOG',
      patientIds: [],
      recordIds: [
        `through-seal:${through.seq}`,
        `through:${removal.throughAt}`,
        `records:${records}`,
        `retention-days:${retentionDays}`,
      ],
      outcome: 200,
    });
    try {
      await sql`SELECT cairn_access_log_remove(${tenantId}, ${through.seq}, ${seq}, ${newest.hash}, ${hash},
        ${JSON.stringify(removal)}::jsonb, ${now}, ${JSON.stringify(record)}::jsonb)`.execute(db);
    } catch (error) {
      // A seal made since the read took the place this removal's seal was to take (refused, or its
      // insert met the seal's row): the next run removes.
      const code = (error as { code?: unknown }).code;
      if (code === '40001' || code === '23505') return removed;
      throw error;
    }
    // Published after, in a write of its own: the removal is already in the chain, and in the log's line.
    await write(ctx, async (w) =>
      publish(services, w, tenantId, { seq, hash, previousHash: newest.hash, records, kind: 'RETENTION' }),
    );
    removed += records;
  }
}
