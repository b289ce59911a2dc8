import { sql } from 'kysely';
import { tryLockKey } from '../../db/locks.ts';
import { writeAccess } from '../../events/access.ts';
import type { Services } from '../../http/services.ts';
import { jobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import './tables.ts';

/** Seals removed in one transaction (each holds up to 10,000 records). */
const SEALS_PER_REMOVAL = 20;

/** The record a removal writes: its operation. */
export const RETENTION_OPERATION = 'access-log.retention';

/**
 * Removes the tenant's records older than its retention, whole seals at a time, so the chain still
 * verifies: the newest removed seal stays (marked removed) as the anchor of what follows. Each
 * removal writes its own record, in its transaction: when, and through which seal and instant
 * (`recordIds`: `through-seal:<n>`, `through:<instant>`, `records:<count>`). Answers the records removed.
 */
export async function removeExpired(services: Services, tenantId: string, retentionDays: number): Promise<number> {
  const ctx = await jobContext(services, tenantId);
  if (!ctx) return 0;
  let removed = 0;
  for (;;) {
    const count = await write(ctx, async (w) => {
      if (!(await tryLockKey(w.db, `${tenantId}/access-log/seal`))) return 0;
      const cutoff = new Date(w.now.getTime() - retentionDays * 86_400_000);
      const seals = await w.db
        .selectFrom('access_log_seals')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('removed_at', 'is', null)
        .where('through_at', '<', cutoff)
        .orderBy('seq')
        .limit(SEALS_PER_REMOVAL)
        .execute();
      const through = seals.at(-1);
      if (!through) return 0;
      const border = sql<boolean>`(occurred_at, id) <= (${through.through_at}, ${through.through_id})`;
      await w.db.deleteFrom('access_log').where('tenant_id', '=', tenantId).where(border).execute();
      await w.db
        .updateTable('access_log_seals')
        .set({ removed_at: w.now })
        .where('tenant_id', '=', tenantId)
        .where('seq', '=', through.seq)
        .execute();
      await w.db.deleteFrom('access_log_seals').where('tenant_id', '=', tenantId).where('seq', '<', through.seq).execute();
      const records = seals.reduce((sum, seal) => sum + seal.records, 0);
      await writeAccess(w.db, {
        tenantId,
        instanceId: null,
        actor: { type: 'SYSTEM', id: null, name: `SYSTEM:${RETENTION_OPERATION}`, onBehalfOf: null },
        at: w.now,
        clientAddress: null,
        requestId: null,
        operation: RETENTION_OPERATION,
        resourceType: 'ACCESS_LOG',
        patientIds: [],
        recordIds: [`through-seal:${through.seq}`, `through:${through.through_at.toISOString()}`, `records:${records}`],
        outcome: 200,
      });
      return records;
    });
    removed += count;
    if (count === 0) return removed;
  }
}
