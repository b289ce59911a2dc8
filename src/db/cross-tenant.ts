/**
 * The statements that read or write many tenants' rows by nature: platform work no tenant asks
 * for. Every other statement names its tenant as a parameter for each table it touches, so on
 * Citus it runs on the one node that holds that tenant (a router plan); these fan out to every
 * shard, on purpose, and each is listed here with its reason. A statement carries its mark
 * (`crossTenant('job-claim')`) at the start of its text; the router-plan check of the tests
 * (src/test/router-plans.ts) lets marked statements fan out and fails any other that does.
 */
export const CROSS_TENANT_STATEMENTS = {
  'due-tenants':
    "The job workers' sweep, a safety net for scheduled work (retries, delayed jobs) and wake-ups missed: which tenants have due jobs or events waiting, in one statement, at most every second while it finds work and every CAIRN_JOB_SWEEP_SECONDS (5) idle, about once a period for the cluster. Work a write enqueues wakes the nodes by tenant instead (a notification), claimed pinned to the tenant. On Citus it names the known tenants (only their shards are read) and, when a worker is unreachable, asks each worker's tenants apart, so the others are served (jobs/queue.ts, jobs/sweep.ts).",
  'pending-events':
    "The outbox relay asked for every tenant (a signal that names none): which tenants have events waiting, then each relayed pinned to it. A relay for named tenants (a write's, or the sweep's) reads no other tenant (modules/webhooks/relay.ts).",
  'idempotency-expiry':
    "The platform's periodic job removes every tenant's expired Idempotency-Keys in one statement, each shard its own in parallel (http/idempotency-store.ts).",
  'oauth-expiry':
    "The apps area's periodic job removes every tenant's expired authorization-server records (codes, tokens, sessions) in one statement, each shard its own in parallel (modules/apps/store.ts).",
  'installation-copy':
    "`cairn backup`, `restore` and `copy` read and write the whole installation, every tenant's rows of each table in one pass of its key (cli/operating/): an operator's command, never a request.",
} as const satisfies Record<string, string>;

export type CrossTenantStatement = keyof typeof CROSS_TENANT_STATEMENTS;

const MARK = /\/\*cross-tenant:([a-z-]+)\*\//;

/** The mark a cross-tenant statement's text starts with (a SQL comment, after PREPARED when it has that). */
export function crossTenant(name: CrossTenantStatement): string {
  return `/*cross-tenant:${name}*/`;
}

/** The cross-tenant statement a text is marked as, if any. */
export function crossTenantMarkOf(text: string): CrossTenantStatement | undefined {
  const name = MARK.exec(text)?.[1];
  return name !== undefined && name in CROSS_TENANT_STATEMENTS ? (name as CrossTenantStatement) : undefined;
}
