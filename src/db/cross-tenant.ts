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
    "Job workers serve every tenant: on Citus they first read which tenants have due jobs (FOR UPDATE over many shards is refused), then take each tenant's jobs pinned to it (jobs/queue.ts).",
  'pending-events':
    "The outbox relay serves every tenant: it reads which tenants have events waiting, then relays each tenant's pinned to it (modules/webhooks/relay.ts).",
  'idempotency-expiry':
    "The platform's periodic job removes every tenant's expired Idempotency-Keys in one statement, each shard its own in parallel (http/idempotency-store.ts).",
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
