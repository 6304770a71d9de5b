import type { JobAttempt } from 'setpoint/queue/job-queue';

/**
 * Where one run's webhook → recommendation time went (milliseconds). Work is the handlers' own time;
 * `queued` is every step's wait for a free worker; `other` is the rest (retry back-off, hand-offs
 * between steps, the model update).
 */
export interface RunLatency {
  /** Setpoint's run id. */
  runId: string;
  total: number;
  /** The platform's collection (run, cluster and event log read; the log fetched into the blob store). */
  collection: number;
  parsing: number;
  costing: number;
  /** The recommendation step: the fleet prior in effect, the optimizer pass, the decision. */
  optimizer: number;
  queued: number;
  other: number;
}

export const latencyParts = ['collection', 'parsing', 'costing', 'optimizer', 'queued', 'other'] as const;
export type LatencyPart = (typeof latencyParts)[number];

export interface LatencyRun {
  id: string;
  externalRunId: string;
  /** When the platform's webhook for the run arrived. */
  receivedAt: number;
  /** The recommendation based on the run: when it was ready. */
  recommendationId: string;
  readyAt: number;
}

const collectKinds = new Set(['databricks.collect', 'emr.collect']);
const partOfKind: Record<string, LatencyPart> = {
  'run.ingest': 'collection',
  'run.parse': 'parsing',
  'run.cost': 'costing',
  'recommendation.generate': 'optimizer',
};

/** The run a job's payload names: Setpoint's run id, the platform's run id, or a recommendation id. */
function keysOf(attempt: JobAttempt): string[] {
  const payload = attempt.payload as Record<string, unknown>;
  const keys: string[] = [];
  for (const field of ['runId', 'recommendationId'] as const)
    if (typeof payload[field] === 'string') keys.push(payload[field]);
  if (typeof payload.clusterId === 'string' && typeof payload.stepId === 'string')
    keys.push(`${payload.clusterId}:${payload.stepId}`);
  return keys;
}

/**
 * Each run's webhook → recommendation time split by step, from the workers' timed attempts. A
 * collection that waited for the log to be complete (retries) counts the time between its attempts as
 * collection, their waits for a worker as queued.
 */
export function latencyBreakdown(runs: readonly LatencyRun[], attempts: readonly JobAttempt[]): RunLatency[] {
  const byKey = new Map<string, JobAttempt[]>();
  for (const attempt of attempts) {
    for (const key of keysOf(attempt)) {
      const list = byKey.get(key) ?? [];
      list.push(attempt);
      byKey.set(key, list);
    }
  }
  return runs.map((run) => {
    // the part of [from, to) inside this run's webhook → recommendation window (a recommendation's step
    // goes on past it: the auto-apply that follows is not the recommendation's latency)
    const inWindow = (from: number, to: number) =>
      Math.max(0, Math.min(to, run.readyAt) - Math.max(from, run.receivedAt));
    const own = [
      ...(byKey.get(run.externalRunId) ?? []).filter((attempt) => collectKinds.has(attempt.kind)),
      ...(byKey.get(run.id) ?? []).filter((attempt) => !collectKinds.has(attempt.kind)),
      ...(byKey.get(run.recommendationId) ?? []),
    ].filter((attempt) => attempt.startedAt < run.readyAt && attempt.finishedAt > run.receivedAt);
    const parts: Record<LatencyPart, number> = {
      collection: 0,
      parsing: 0,
      costing: 0,
      optimizer: 0,
      queued: 0,
      other: 0,
    };
    for (const attempt of own) parts.queued += inWindow(attempt.readyAt, attempt.startedAt);
    const collects = own.filter((attempt) => collectKinds.has(attempt.kind));
    if (collects.length > 0) {
      const first = Math.min(...collects.map((attempt) => attempt.startedAt));
      const last = Math.max(...collects.map((attempt) => attempt.finishedAt));
      const retryWaits = collects
        .filter((attempt) => attempt.startedAt > first)
        .reduce((sum, attempt) => sum + inWindow(attempt.readyAt, attempt.startedAt), 0);
      parts.collection += inWindow(first, last) - retryWaits;
    }
    for (const attempt of own) {
      const part = partOfKind[attempt.kind];
      if (part) parts[part] += inWindow(attempt.startedAt, attempt.finishedAt);
    }
    const total = run.readyAt - run.receivedAt;
    const accounted = latencyParts.reduce((sum, part) => sum + parts[part], 0);
    return { runId: run.id, total, ...parts, other: Math.max(0, total - accounted) };
  });
}
