import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { connectionErrorCode, isConnectionError } from '../db/availability.ts';
import type { DatabaseKind } from '../db/database.ts';
import { tenantsByWorker } from '../db/placement.ts';
import type { DB } from '../db/schema.ts';
import { type DueTenant, dueWork, PLATFORM_TENANT } from './queue.ts';

/** How long the tenants' placement is kept: a tenant made since is found by wake-ups, by sweeps after it. */
const PLACEMENT_MS = 10_000;
/** Past this many tenants a sweep reads every shard: a list that long names most of them anyway. */
const LISTED_TENANTS = 500;

interface Log {
  warn(object: object, message: string): void;
}

/**
 * The job workers' look across tenants (scheduled work, events a wake-up missed). On Citus it
 * names the tenants it asks about, so it reads only the shards holding one, and when a worker
 * cannot be reached it asks each worker's tenants on their own: the others' tenants are served
 * while one worker is down. On PostgreSQL and PGlite it is one statement.
 */
export class TenantSweep {
  private placement: { groups: string[][]; at: number } | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly engine: DatabaseKind,
    private readonly log: Log,
  ) {}

  async due(options: { kinds: readonly string[]; now: Date; limit: number }): Promise<DueTenant[]> {
    if (this.engine !== 'citus') return dueWork(this.db, options);
    const groups = await this.groups();
    const all = groups.flat();
    try {
      return await dueWork(this.db, { ...options, ...(all.length <= LISTED_TENANTS ? { tenants: all } : {}) });
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      // Placements may have moved (a rebalance): read them afresh next time.
      this.placement = undefined;
      const found: DueTenant[] = [];
      for (const tenants of groups) {
        try {
          found.push(...(await dueWork(this.db, { ...options, tenants })));
        } catch (failure) {
          if (!isConnectionError(failure)) throw failure;
          this.log.warn({ code: connectionErrorCode(failure), tenants: tenants.length }, 'job sweep: a worker is unreachable');
        }
      }
      return found;
    }
  }

  private async groups(): Promise<string[][]> {
    const now = performance.now();
    if (!this.placement || now - this.placement.at > PLACEMENT_MS) {
      this.placement = { groups: await tenantsByWorker(this.db, [PLATFORM_TENANT]), at: now };
    }
    return this.placement.groups;
  }
}
