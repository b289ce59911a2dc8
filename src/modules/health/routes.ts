import cluster from 'node:cluster';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { AreaPlugin } from '../../http/plugin.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  /** Which worker answered under `serve --workers N` (0 when single-process). */
  worker: Type.Integer(),
});

const worker = cluster.worker?.id ?? 0;

/** Liveness (the process answers) and readiness (it can reach its database). */
const healthRoutes: AreaPlugin = async (app, { services }) => {
  app.get(
    '/health/live',
    { schema: { tags: ['Health'], summary: 'The process is up', security: [], response: { 200: Health } } },
    async () => ({ status: 'ok' as const, worker }),
  );

  app.get(
    '/health/ready',
    {
      schema: { tags: ['Health'], summary: 'The database answers', security: [], response: { 200: Health, 503: Health } },
    },
    async (_request, reply) => {
      try {
        await sql`SELECT 1`.execute(services.db);
        return { status: 'ok' as const, worker };
      } catch {
        return reply.code(503).send({ status: 'unavailable' as const, worker });
      }
    },
  );
};

export default healthRoutes;
