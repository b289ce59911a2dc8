import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { JobOutcome } from '../jobs/runner.ts';

/**
 * Prometheus metrics: requests by route pattern, method and status, and their latency; the jobs
 * this process ran, by kind and outcome. The route label is the pattern
 * (`/:tenantName/:instanceName/patients/:patientId`), never the URL, which keeps label counts
 * bounded and keeps ids and search terms out of the metrics.
 */
export function registerMetrics(
  app: FastifyInstance,
  jobs: { ended: ReadonlyMap<string, ReadonlyMap<JobOutcome, number>> },
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Counter({
    name: 'cairn_jobs_total',
    help: 'Job runs this process ended, by kind and outcome (succeeded, failed, buried, unrecorded)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, outcomes] of jobs.ended) for (const [outcome, runs] of outcomes) this.inc({ kind, outcome }, runs);
    },
  });
  const requests = new Counter({
    name: 'cairn_http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cairn_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  if (cluster.isWorker) {
    // Lets the primary collect this worker's registry (the constructor installs prom-client's listener).
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }

  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    // Under `serve --workers N` any worker may answer; the primary gathers every worker's metrics.
    return cluster.isWorker ? clusterMetrics() : registry.metrics();
  });
  return registry;
}

let nextRequestId = 0;

/** Asks the primary process for the metrics of all workers (see `serveMetricsForWorkers`). */
function clusterMetrics(): Promise<string> {
  const id = ++nextRequestId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error('metrics from the primary timed out'));
    }, 5000);
    const onMessage = (message: { type?: string; id?: number; text?: string }) => {
      if (message?.type !== 'cairn:metrics:reply' || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(message.text ?? '');
    };
    process.on('message', onMessage);
    process.send?.({ type: 'cairn:metrics', id });
  });
}

/** Runs in the primary of `serve --workers N`: answers workers' requests for cluster-wide metrics. */
export function serveMetricsForWorkers(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', async (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== 'cairn:metrics') return;
    const text = await aggregator.clusterMetrics().catch(() => '');
    worker.send({ type: 'cairn:metrics:reply', id: message.id, text });
  });
}
