import { type RawBuilder, sql } from 'kysely';
import { beginWrite } from '../db/in-flight.ts';
import type { Work } from '../events/work.ts';
import type { TenantContext } from '../http/context.ts';
import { freeExpiredKey, isKeyTaken } from '../http/idempotency-store.ts';
import { UnitOfWork, type WriteOptions } from './unit.ts';

export type { WriteOptions } from './unit.ts';

/**
 * The one way to write: runs `work` in a transaction with a `Work` (the transaction, the write's
 * instant, its audit rows and events, jobs and after-commit callbacks), writes what it buffered
 * just before the commit, then runs the after-commit callbacks. A failure anywhere rolls all of it
 * back and runs no callback.
 *
 * The instant is taken once the write holds its connection, and its BEGIN names the write as in
 * flight (db/in-flight.ts), so a reader of recent changes (the export) never passes a write that
 * is still open, and on PGlite, whose one connection serialises writes, instants follow commits.
 */
export async function write<T>(ctx: TenantContext, work: (w: Work) => Promise<T>, options: WriteOptions = {}): Promise<T> {
  const { unit, result } = await takingExpiredKey(ctx, () => writeOnce(ctx, work, options));
  await unit.committed();
  return result;
}

function writeOnce<T>(ctx: TenantContext, work: (w: Work) => Promise<T>, options: WriteOptions) {
  return ctx.db.connection().execute(async (db) => {
    const unit = new UnitOfWork(ctx, db, options);
    await sql.raw(beginWrite(ctx.services.dbKind, ctx.tenant.id, unit.now)).execute(db);
    try {
      const result = await work(unit);
      await unit.flush();
      await sql.raw('COMMIT').execute(db);
      return { unit, result };
    } catch (error) {
      // A failed COMMIT has ended the transaction already; a lost connection answers nothing.
      await sql
        .raw('ROLLBACK')
        .execute(db)
        .catch(() => {});
      throw error;
    }
  });
}

export interface OneStatement extends Work {
  /** The write's audit rows, events and jobs as CTEs, each preceded by a comma, to put after the statement's own; call it last. */
  pendingWrites(): RawBuilder<unknown>;
}

/**
 * A write that is a single statement (its own transaction, one round trip: the patient create).
 * `statement` records its changes on the `OneStatement` as any write does, then builds the
 * statement with `pendingWrites()` among its CTEs; nothing else may touch the database. Its instant
 * is taken once it holds its connection: it is in flight from there until its one statement ends
 * (the export's settle time covers that span; db/in-flight.ts).
 */
export async function writeStatement<R>(
  ctx: TenantContext,
  statement: (w: OneStatement) => RawBuilder<R>,
  options: WriteOptions = {},
): Promise<R[]> {
  const { unit, rows } = await takingExpiredKey(ctx, () =>
    ctx.db.connection().execute(async (db) => {
      const unit = new UnitOfWork(ctx, db, options);
      const { rows } = await statement(unit).execute(db);
      return { unit, rows };
    }),
  );
  await unit.committed();
  return rows;
}

/**
 * Runs a write that carries the request's idempotency key; when the key's row is there but expired
 * (the expiry job has not come yet), removes it and runs the write again, once. A live key another
 * request holds fails the write, and the request answers as that key says (http/idempotency.ts).
 */
async function takingExpiredKey<T>(ctx: TenantContext, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const { idempotency } = ctx;
    if (!idempotency || !isKeyTaken(error)) throw error;
    if (!(await freeExpiredKey(ctx.services.db, idempotency, ctx.services.clock.now()))) throw error;
    return run();
  }
}
