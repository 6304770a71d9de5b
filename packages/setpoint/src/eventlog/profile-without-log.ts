import { emptyMetricTotals, emptyParseCounts } from './run-aggregator.js';
import type { RunProfile } from './run-profile.js';

/**
 * The parts of a run profile built without an event log (from a platform's timeline or system tables) that
 * only a log could fill: no job, stage or SQL counts, and a parse report that read nothing and says why.
 */
export function totalsWithoutLog(): RunProfile['totals'] {
  return { ...emptyMetricTotals(), jobs: 0, failedJobs: 0, stages: 0, failedStages: 0, sqlExecutions: 0 };
}

/** A parse report for a profile no event log went into: every count zero, `warning` says where it came from. */
export function parseReportWithoutLog(warning: string): RunProfile['parse'] {
  return {
    ...emptyParseCounts(),
    warnings: [warning],
    issues: [],
    sparkProperties: { seen: 0, kept: 0, redacted: 0 },
  };
}
