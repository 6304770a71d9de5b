import { mean } from '@setpoint/foundation/statistics';
import { chronological, type InsightRun, isSuccessful, runtimeMinutes } from './insight-run.js';
import { type Insight, projectInsights } from './project-insights.js';
import { type ProjectRoi, projectRoi } from './roi.js';

export interface ProjectSummary {
  runs: number;
  lastRun: {
    id: string;
    status: string | null;
    startedAt: number | null;
    runtimeMinutes: number | null;
  } | null;
  /** Mean cost of the last `window` successful costed runs. */
  costPerRunUsd: number | null;
  /** Mean runtime of the last `window` successful runs. */
  runtimeMinutes: number | null;
  /** Share of successful timed runs that finished within the SLA; null without an SLA or runs. */
  slaHitRate: number | null;
  roi: ProjectRoi | null;
  insights: Insight[];
}

/** Everything the projects table shows about one project, from its runs and its SLA. */
export function summarizeProject(
  runs: readonly InsightRun[],
  context: { now: number; slaMinutes: number | null },
  window = 5,
): ProjectSummary {
  const ordered = chronological(runs);
  const last = ordered[ordered.length - 1];
  const successful = ordered.filter(isSuccessful);
  const recentCosts = successful.flatMap((run) => (run.costUsd === null ? [] : [run.costUsd])).slice(-window);
  const timed = successful.flatMap((run) => {
    const minutes = runtimeMinutes(run);
    return minutes === null ? [] : [minutes];
  });
  const sla = context.slaMinutes;
  return {
    runs: ordered.length,
    lastRun: last
      ? { id: last.id, status: last.status, startedAt: last.startedAt, runtimeMinutes: runtimeMinutes(last) }
      : null,
    costPerRunUsd: mean(recentCosts),
    runtimeMinutes: mean(timed.slice(-window)),
    slaHitRate:
      sla === null || timed.length === 0
        ? null
        : timed.filter((minutes) => minutes <= sla).length / timed.length,
    roi: projectRoi(ordered),
    insights: projectInsights(ordered, context),
  };
}
