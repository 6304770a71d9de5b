import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { JobQueue } from '../queue/job-queue.js';

/** One registry per process (never the global one, so tests can build many apps). */
export function createMetrics(queue: Pick<JobQueue, 'depth'>) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'setpoint_' });
  const httpDuration = new Histogram({
    name: 'setpoint_http_request_duration_seconds',
    help: 'API request latency by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'setpoint_job_duration_seconds',
    help: 'Pipeline job attempt latency by kind and outcome (done, retry, parked)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [registry],
  });
  const ingestedBytes = new Counter({
    name: 'setpoint_ingested_bytes_total',
    help: 'Event-log bytes accepted (uploads and eventlog_uri downloads)',
    registers: [registry],
  });
  new Gauge({
    name: 'setpoint_queue_jobs',
    help: 'Jobs waiting (queued) or running, by kind',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await queue.depth()) this.set({ kind: row.kind, state: row.state }, row.count);
    },
  });
  return { registry, httpDuration, jobDuration, ingestedBytes };
}

export type Metrics = ReturnType<typeof createMetrics>;
