import { Type } from 'typebox';
import { settingsSection } from '../config.ts';

/** The job workers each process runs: the jobs mechanism's section of the configuration. */
export const jobSettings = settingsSection(
  'jobs',
  Type.Object({
    CAIRN_JOB_WORKERS: Type.Integer({
      minimum: 0,
      maximum: 100,
      default: 4,
      description: 'Background jobs each serving process runs at once; 0 runs none here (API-only nodes).',
    }),
    CAIRN_JOB_POLL_MS: Type.Integer({
      minimum: 50,
      default: 500,
      description: 'How often idle job workers look for due jobs (a write on the same process wakes them at once).',
    }),
    CAIRN_JOB_LEASE_SECONDS: Type.Integer({
      minimum: 5,
      default: 60,
      description:
        'How long a taken job is its worker’s unless renewed while it runs; a job whose worker died runs again after it.',
    }),
  }),
  (e) => ({ concurrency: e.CAIRN_JOB_WORKERS, pollMs: e.CAIRN_JOB_POLL_MS, leaseMs: e.CAIRN_JOB_LEASE_SECONDS * 1000 }),
);

export type JobSettings = ReturnType<typeof jobSettings.read>;
