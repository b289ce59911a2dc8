import type { FastifyBaseLogger } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { Listen } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { codeOf } from '../jobs/runner.ts';

/** The channel of one installation: one per schema, so installations sharing a database do not clear each other's. */
function channelOf(schema: string): string {
  return `cairn_caches:${schema}`;
}

/**
 * The read caches (cache.ts) of every serving process, dropped at once across nodes. A change that
 * makes them stale (a user or client disabled, roles changed, a formation published, a provider
 * configured) calls `changed()` after its commit: this process clears its caches, and a
 * notification on the installation's channel tells every other process, each listening on one
 * connection of its own, to clear theirs. Whenever that connection is made (again) the caches are
 * cleared too, for what was sent while nobody heard. With the notifications heard, the caches'
 * time (CAIRN_CACHE_TTL_MS) is only the net under one lost; on PGlite (one process) there is
 * nobody else to tell.
 */
export class CacheInvalidation {
  private listener: { close(): Promise<void> } | undefined;
  private channel: Promise<string> | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clear: () => void,
    private readonly log: FastifyBaseLogger,
    private readonly listen?: Listen,
  ) {}

  async start(): Promise<void> {
    if (!this.listen || this.listener) return;
    this.listener = this.listen(await this.channelName(), this.clear, this.clear);
  }

  async stop(): Promise<void> {
    await this.listener?.close();
    this.listener = undefined;
  }

  /** After a committed change: this process's caches now, every other's on the notification. */
  async changed(): Promise<void> {
    this.clear();
    if (!this.listen) return;
    try {
      // A statement of its own, to the coordinator on Citus, where the nodes listen.
      await sql`SELECT pg_notify(${await this.channelName()}, '')`.execute(this.db);
    } catch (error) {
      // The change is committed; the other nodes' caches end within their time instead.
      this.log.warn({ code: codeOf(error) }, 'cache invalidation not sent');
    }
  }

  private channelName(): Promise<string> {
    this.channel ??= sql<{ schema: string }>`SELECT current_schema() AS schema`
      .execute(this.db)
      .then(({ rows }) => channelOf(rows[0]!.schema));
    // A failed look is asked again next time.
    this.channel.catch(() => {
      this.channel = undefined;
    });
    return this.channel;
  }
}
