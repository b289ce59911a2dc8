import { Type } from 'typebox';
import { settingsSection } from '../config.ts';

/**
 * The job workers each process runs: the jobs mechanism's section of the configuration.
 *
 * Why 12 at once: most jobs wait on something outside (a receiver's answer, an SMTP relay), so a
 * process's job throughput is its concurrency over a job's latency. A webhook delivery takes 40–50
 * ms on the 2-core bench machine under load; 4 slots per process (8 with two workers) cap
 * deliveries near 160–200 a second, and at 200 writes a second a backlog built (p95 10.6 s). With
 * 12 the same run delivered at p95 0.99 s, and creates kept 0.90 of their rate before the outbox.
 * A job holds a database connection only for its statements, not while it waits.
 */
export const jobSettings = settingsSection(
  'jobs',
  Type.Object({
    CAIRN_JOB_WORKERS: Type.Integer({
      minimum: 0,
      maximum: 100,
      default: 12,
      description: 'Background jobs each serving process runs at once; 0 runs none here (API-only nodes).',
    }),
    CAIRN_JOB_SWEEP_SECONDS: Type.Integer({
      minimum: 1,
      default: 5,
      description:
        'How often idle job workers look across tenants for scheduled work (retries, delayed jobs) and anything a wake-up missed; every second while they find some. Work a write enqueues wakes them at once.',
    }),
    CAIRN_JOB_LEASE_SECONDS: Type.Integer({
      minimum: 5,
      default: 60,
      description:
        'How long a taken job is its worker’s unless renewed while it runs; a job whose worker died runs again after it.',
    }),
  }),
  (e) => ({
    concurrency: e.CAIRN_JOB_WORKERS,
    sweepMs: e.CAIRN_JOB_SWEEP_SECONDS * 1000,
    leaseMs: e.CAIRN_JOB_LEASE_SECONDS * 1000,
  }),
);

export type JobSettings = ReturnType<typeof jobSettings.read>;
