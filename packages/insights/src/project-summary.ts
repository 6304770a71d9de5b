import type { CostTotals } from '@setpoint/api-contract';
import { mean } from '@setpoint/foundation/statistics';
import type { ComponentFactor } from './cost-totals.js';
import { chronological, type InsightRun, isSuccessful, runtimeMinutes } from './insight-run.js';
import { type Insight, projectInsights } from './project-insights.js';
import { type ProjectRoi, projectRoi } from './roi.js';
import { type SlaHealth, slaHealth } from './sla-health.js';
import { spendInPeriod, spendWindow } from './spend.js';

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
  /** Spend of the runs that started in `spendWindow` (the KPI header's), each component × the context's factor. */
  spend: CostTotals;
  spendWindow: { from: number; to: number };
  /** Mean runtime of the last `window` successful runs. */
  runtimeMinutes: number | null;
  /** The rolling SLA-hit rate of the last runs (`slaHealth`); null without an SLA or a judged run. */
  slaHitRate: number | null;
  slaHealth: SlaHealth;
  roi: ProjectRoi | null;
  insights: Insight[];
}

/** Everything the projects table shows about one project, from its runs and its SLA. */
export function summarizeProject(
  runs: readonly InsightRun[],
  context: { now: number; slaMinutes: number | null; factor?: ComponentFactor },
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
  const health = slaHealth(ordered, context.slaMinutes);
  const periodOfSpend = spendWindow(context.now);
  return {
    runs: ordered.length,
    lastRun: last
      ? { id: last.id, status: last.status, startedAt: last.startedAt, runtimeMinutes: runtimeMinutes(last) }
      : null,
    costPerRunUsd: mean(recentCosts),
    spend: spendInPeriod(
      ordered.map((run) => ({
        startedAt: run.startedAt,
        cost: run.costComponents ? { components: run.costComponents } : null,
      })),
      periodOfSpend.from,
      periodOfSpend.to,
      context.factor,
    ),
    spendWindow: periodOfSpend,
    runtimeMinutes: mean(timed.slice(-window)),
    slaHitRate: health.hitRate,
    slaHealth: health,
    roi: projectRoi(ordered),
    insights: projectInsights(ordered, context),
  };
}
