import type { CostComponentLike } from './cost-totals.js';

/**
 * What ROI and insight computations need to know about one run. Callers map their run records
 * (domain runs on the server, wire runs in the dashboard) onto this shape.
 */
export interface InsightRun {
  id: string;
  /** Epoch milliseconds; null when the run's times are unknown. */
  startedAt: number | null;
  endedAt: number | null;
  /** Databricks result state (SUCCESS, FAILED, TIMEDOUT, CANCELED…) or null when not reported. */
  status: string | null;
  costUsd: number | null;
  /** The cost's typed components (null: not costed); spend sums them by kind. */
  costComponents: readonly CostComponentLike[] | null;
  inputBytes: number | null;
  /** Identity of the cluster configuration the run used; equal keys mean the same configuration. */
  configKey: string | null;
  /** Setpoint recommendation the run was configured from; null for runs Setpoint did not configure. */
  recommendationId: string | null;
  /** Fraction of executor core time spent in tasks, 0–1. */
  coreUtilization: number | null;
  /** Worker nodes lost to spot reclamation during the run. */
  spotLosses: number | null;
}

const failedStatus = /FAIL|TIMEDOUT|TIMED_OUT|ERROR|INTERNAL/i;

export function isFailed(run: Pick<InsightRun, 'status'>): boolean {
  return run.status !== null && failedStatus.test(run.status);
}

/** A run counts as successful unless it reported a failure; uploads without a status are successes. */
export function isSuccessful(run: Pick<InsightRun, 'status'>): boolean {
  return run.status === null ? true : /SUCC/i.test(run.status) && !failedStatus.test(run.status);
}

export function runtimeMinutes(run: Pick<InsightRun, 'startedAt' | 'endedAt'>): number | null {
  if (run.startedAt === null || run.endedAt === null || run.endedAt < run.startedAt) return null;
  return (run.endedAt - run.startedAt) / 60_000;
}

/** Oldest first; runs without a start time keep their relative order after the timed ones. */
export function chronological(runs: readonly InsightRun[]): InsightRun[] {
  return runs
    .map((run, index) => ({ run, index }))
    .sort((a, b) => {
      const ta = a.run.startedAt ?? Number.POSITIVE_INFINITY;
      const tb = b.run.startedAt ?? Number.POSITIVE_INFINITY;
      return ta === tb ? a.index - b.index : ta - tb;
    })
    .map(({ run }) => run);
}
