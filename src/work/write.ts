import type { RawBuilder } from 'kysely';
import type { Work } from '../events/work.ts';
import type { TenantContext } from '../http/context.ts';
import { UnitOfWork, type WriteOptions } from './unit.ts';

export type { WriteOptions } from './unit.ts';

/**
 * The one way to write: runs `work` in a transaction with a `Work` (the transaction, the write's
 * instant, its audit rows and events, jobs and after-commit callbacks), writes what it buffered
 * just before the commit, then runs the after-commit callbacks. A failure anywhere rolls all of it
 * back and runs no callback.
 */
export async function write<T>(ctx: TenantContext, work: (w: Work) => Promise<T>, options: WriteOptions = {}): Promise<T> {
  const unit = new UnitOfWork(ctx, options);
  const result = await ctx.db.transaction().execute(async (trx) => {
    unit.db = trx;
    const value = await work(unit);
    await unit.flush();
    return value;
  });
  await unit.committed();
  return result;
}

export interface OneStatement extends Work {
  /** The write's audit rows, events and jobs as CTEs, each preceded by a comma, to put after the statement's own; call it last. */
  pendingWrites(): RawBuilder<unknown>;
}

/**
 * A write that is a single statement (its own transaction, one round trip: the patient create).
 * `statement` records its changes on the `OneStatement` as any write does, then builds the
 * statement with `pendingWrites()` among its CTEs; nothing else may touch the database.
 */
export async function writeStatement<R>(
  ctx: TenantContext,
  statement: (w: OneStatement) => RawBuilder<R>,
  options: WriteOptions = {},
): Promise<R[]> {
  const unit = new UnitOfWork(ctx, options);
  const { rows } = await statement(unit).execute(ctx.db);
  await unit.committed();
  return rows;
}
