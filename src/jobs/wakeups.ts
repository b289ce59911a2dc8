import { performance } from 'node:perf_hooks';

/**
 * Wake-ups between nodes: a process that committed work it does not take itself (an API-only
 * node, or one with every worker busy) names the tenants in a PostgreSQL notification on the
 * coordinator, and the nodes with job workers, each listening on one connection, claim those
 * tenants' jobs with statements pinned to them (router plans) and relay their events. A node's
 * sweep says so too, so the others put theirs off: about one sweep a period for the cluster.
 */

/** What a notification carries: tenants with new jobs (`j`), with new events (`e`), a sweep (`s`), its sender (`w`). */
export interface Wakeup {
  w: string;
  j?: string[];
  e?: string[];
  s?: 1;
}

/** PostgreSQL's limit on a payload is 8000 bytes: a uuid takes 39 with its quotes and comma, in two lists. */
const TENANTS_A_MESSAGE = 90;

/** The channel of one installation: one per schema, so installations sharing a database do not wake each other. */
export function channelOf(schema: string): string {
  return `cairn_jobs:${schema}`;
}

export function readWakeup(payload: string): Wakeup | undefined {
  try {
    const message = JSON.parse(payload) as Wakeup;
    const tenants = (list: unknown) => list === undefined || (Array.isArray(list) && list.every((id) => typeof id === 'string'));
    return typeof message.w === 'string' && tenants(message.j) && tenants(message.e) ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends wake-ups, coalesced: tenants named within `windowMs` go in one notification, and a tenant
 * already named is named again no sooner than `gapMs` later (a steady stream of one tenant's
 * writes costs two notifications a second, not one per write). Every tenant added is named within
 * `gapMs + windowMs`. Times are the process's monotonic clock: they pace sends, they stamp nothing.
 */
export class WakeupSender {
  private readonly pending = new Map<string, { jobs: boolean; events: boolean }>();
  private readonly lastSent = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private due = Number.POSITIVE_INFINITY;

  constructor(
    private readonly worker: string,
    private readonly send: (payload: string) => Promise<void>,
    private readonly windowMs = 50,
    private readonly gapMs = 500,
  ) {}

  add(what: 'jobs' | 'events', tenants: Iterable<string>): void {
    const now = performance.now();
    for (const tenant of tenants) {
      const entry = this.pending.get(tenant) ?? { jobs: false, events: false };
      entry[what] = true;
      this.pending.set(tenant, entry);
      this.flushBy(Math.max(now + this.windowMs, (this.lastSent.get(tenant) ?? -Infinity) + this.gapMs));
    }
  }

  /** A sweep ran here: said at once, with the tenants it found jobs for that this process has no room for. */
  announceSweep(tenants: readonly string[]): Promise<void> {
    return this.sendAll({ w: this.worker, s: 1 }, tenants, []);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.pending.clear();
  }

  private flushBy(at: number): void {
    if (at >= this.due) return;
    this.due = at;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - performance.now())).unref();
  }

  private flush(): void {
    this.due = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const jobs: string[] = [];
    const events: string[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [tenant, entry] of this.pending) {
      const ready = (this.lastSent.get(tenant) ?? -Infinity) + this.gapMs;
      if (ready > now) {
        next = Math.min(next, ready);
        continue;
      }
      if (entry.jobs) jobs.push(tenant);
      if (entry.events) events.push(tenant);
      this.lastSent.set(tenant, now);
      this.pending.delete(tenant);
    }
    // Tenants quiet for a gap need no memory of their last send.
    for (const [tenant, at] of this.lastSent) if (at + this.gapMs < now) this.lastSent.delete(tenant);
    if (next !== Number.POSITIVE_INFINITY) this.flushBy(next);
    if (jobs.length + events.length > 0) void this.sendAll({ w: this.worker }, jobs, events);
  }

  private async sendAll(base: Wakeup, jobs: readonly string[], events: readonly string[]): Promise<void> {
    let first = true;
    for (let i = 0; first || i < Math.max(jobs.length, events.length); i += TENANTS_A_MESSAGE, first = false) {
      const j = jobs.slice(i, i + TENANTS_A_MESSAGE);
      const e = events.slice(i, i + TENANTS_A_MESSAGE);
      await this.send(JSON.stringify({ ...base, ...(j.length ? { j } : {}), ...(e.length ? { e } : {}) })).catch(() => {
        // Lost: the sweep finds the work later (the database may be down; its error is logged there).
      });
    }
  }
}
