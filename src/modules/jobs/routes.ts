import { tenantContextOf } from '../../http/context.ts';
import { DataAndMeta, dataAndMeta, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import type { Services } from '../../http/services.ts';
import { findJob, type JobRow, listJobs, requeueJob } from '../../jobs/queue.ts';
import { ApiError, ErrorBody } from '../../wire/errors.ts';
import { TenantParams } from '../../wire/schemas.ts';
import { write } from '../../work/write.ts';
import { Job, JobListQuery, JobParams } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Jobs'];

function jobView(row: JobRow, services: Services) {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    attempts: row.attempts,
    maxAttempts: services.jobs.kinds.get(row.kind)?.maxAttempts ?? null,
    key: row.queue_key,
    runAt: row.run_at,
    lastError: row.last_error,
    payload: row.payload as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The tenant's background work as its administrators see it: what waits, runs and died, and a requeue. */
const jobRoutes: AreaPlugin = async (app, { services }) => {
  app.get(
    '/:tenantName/admin/jobs',
    {
      config: needs('JOB_READ'),
      schema: {
        tags,
        summary: "The tenant's background jobs, newest first (data and meta); `state=DEAD` lists those out of attempts",
        params: TenantParams,
        querystring: JobListQuery,
        response: { 200: DataAndMeta(Job), ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      const { page, size, state, kind, sort } = request.query;
      const [key] = parseSort(sort, { createdAt: 'seq' });
      const { rows, total } = await listJobs(ctx.db, ctx.tenant.id, { state, kind }, { page, size }, key?.direction);
      return dataAndMeta(
        rows.map((row) => jobView(row, services)),
        total,
        { page, size },
      );
    },
  );

  app.post(
    '/:tenantName/admin/jobs/:jobId/retry',
    {
      config: needs('JOB_WRITE'),
      schema: {
        tags,
        summary: 'Requeue a DEAD job: it runs again with its attempts counted afresh (after the live job of its key, if any)',
        params: JobParams,
        response: { 200: Job, ...errors, 409: ErrorBody },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      const { jobId } = request.params;
      const row = await write(ctx, async (w) => {
        const requeued = await requeueJob(w.db, ctx.tenant.id, jobId, w.now);
        if (!requeued) {
          const found = await findJob(w.db, ctx.tenant.id, jobId);
          throw found ? new ApiError('JOB_NOT_DEAD', { jobId, state: found.state }) : new ApiError('JOB_NOT_FOUND', { jobId });
        }
        w.changed({ action: 'JOB_REQUEUED', entityType: 'JOB', entityId: jobId });
        // The job is due now: wake the workers for its tenant (here, or the job nodes) rather than wait for a sweep.
        w.afterCommit(() => services.jobs.wake([ctx.tenant.id]));
        return requeued;
      });
      return jobView(row, services);
    },
  );
};

export default jobRoutes;
