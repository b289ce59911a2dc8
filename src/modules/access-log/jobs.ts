import { settingsOf } from '../../config.ts';
import { ACCESS_SIGNAL } from '../../http/access-log.ts';
import type { Services } from '../../http/services.ts';
import type { JobKind } from '../../jobs/kinds.ts';
import { SEAL_SETTLE_MS, sealTenant } from './chain.ts';
import { removeExpired } from './retention.ts';
import { accessLogSettings } from './settings.ts';

/**
 * The tenants a run serves: those its job names (a test process, which must not touch another's
 * tenants), else every tenant (the tenants table is small and, on Citus, a reference table).
 */
async function tenantsOf(services: Services, only: unknown): Promise<string[]> {
  if (Array.isArray(only)) return only as string[];
  return (await services.db.selectFrom('tenants').select('id').execute()).map((tenant) => tenant.id);
}

/** Runs `work` for every tenant: one that fails does not hold back the others; the run fails after them. */
async function eachTenant(services: Services, only: unknown, work: (tenantId: string) => Promise<number>) {
  let done = 0;
  let failure: unknown;
  for (const tenantId of await tenantsOf(services, only)) {
    try {
      done += await work(tenantId);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  return done;
}

export const accessLogJobs: Record<string, JobKind<Services>> = {
  'access-log.seal': {
    description: "Seals each tenant's new access records into its hash chain (records a minute old and more)",
    run: (job, services) => eachTenant(services, job.payload.tenants, (tenantId) => sealTenant(services, tenantId)),
    maxAttempts: 1,
    everyMs: 60_000,
    // A node that wrote records seals them once they have settled, its reads of that time together.
    wakeOn: ACCESS_SIGNAL,
    wakeAfterMs: SEAL_SETTLE_MS + 1_000,
  },
  'access-log.retention': {
    description:
      'Removes access records older than CAIRN_ACCESS_LOG_RETENTION_DAYS, whole seals at a time, and records the removal',
    run: (job, services) => {
      const { retentionDays } = settingsOf(services.config, accessLogSettings);
      return eachTenant(services, job.payload.tenants, (tenantId) => removeExpired(services, tenantId, retentionDays));
    },
    maxAttempts: 1,
    everyMs: 60 * 60_000,
    // Also after reads, at most every ten minutes a node: one indexed look at each tenant's oldest seal.
    wakeOn: ACCESS_SIGNAL,
    wakeAfterMs: 10 * 60_000,
  },
};
