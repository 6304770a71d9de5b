import type { AlertEvent } from '@setpoint/api-contract';
import { mean } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import { rollingSlaHealth } from '@setpoint/insights';

/** What a run-based rule needs to know about one run. */
export interface RunFacts {
  id: string;
  projectId: string;
  /** The platform's result state (SUCCESS, FAILED…); null when not reported. */
  status: string | null;
  runtimeMinutes: number | null;
  costUsd: number | null;
}

export interface RuleParams {
  thresholdPct: number;
  windowRuns: number;
  /** `sla_at_risk`: the SLA-hit rate of the last 10 runs below which the project's SLA is at risk. */
  atRiskFraction: number;
}

/** One reason to notify; `key` makes it unique per rule (the same run never alerts twice). */
export interface Finding {
  event: AlertEvent;
  /** Null when what happened belongs to no project (a parked job without one). */
  projectId: string | null;
  key: string;
  title: string;
  detail: Record<string, unknown>;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/**
 * The run-based events a rule of `event` finds in `run`, given the project's earlier runs (newest
 * first) and its SLA. Pure, so each condition is tested on numbers alone.
 */
export function runFinding(
  event: AlertEvent,
  run: RunFacts,
  earlier: RunFacts[],
  context: { projectName: string; slaMinutes: number | null; params: RuleParams },
): Finding | undefined {
  const { projectName, slaMinutes, params } = context;
  const base = { event, projectId: run.projectId, key: `${event}:${run.id}` };
  if (event === 'sla_missed' && slaMinutes !== null && run.runtimeMinutes !== null) {
    if (run.runtimeMinutes <= slaMinutes) return undefined;
    return {
      ...base,
      title: `${projectName}: run took ${round(run.runtimeMinutes, 1)} min, over its ${slaMinutes} min SLA`,
      detail: { run_id: run.id, runtime_minutes: round(run.runtimeMinutes, 3), sla_minutes: slaMinutes },
    };
  }
  if (event === 'sla_at_risk' && slaMinutes !== null) {
    // The rolling SLA-hit rate (insights' `slaHealth`, the projects table's column): the alert goes when
    // this run takes it below the target, once; it goes again only after the rate has recovered.
    const oldestFirst = [...earlier].reverse();
    const options = { target: params.atRiskFraction };
    const before = rollingSlaHealth(oldestFirst, slaMinutes, options);
    const after = rollingSlaHealth([...oldestFirst, run], slaMinutes, options);
    if (!after.atRisk || before.atRisk) return undefined;
    const percent = (share: number | null) => Math.round((share ?? 0) * 100);
    return {
      ...base,
      title: `${projectName}: ${after.missed} of the last ${countOf(after.runs, 'run')} missed the ${slaMinutes} min SLA (${percent(after.hitRate)}% met, below the ${percent(after.target)}% target)`,
      detail: {
        run_id: run.id,
        runtime_minutes: run.runtimeMinutes === null ? null : round(run.runtimeMinutes, 3),
        sla_minutes: slaMinutes,
        runs: after.runs,
        missed: after.missed,
        sla_hit_rate: round(after.hitRate ?? 0, 3),
        target: after.target,
      },
    };
  }
  if (event === 'cost_spike' && run.costUsd !== null) {
    const window = earlier
      .map((candidate) => candidate.costUsd)
      .filter((cost): cost is number => cost !== null)
      .slice(0, params.windowRuns);
    if (window.length < params.windowRuns) return undefined;
    const average = mean(window) ?? 0;
    if (average <= 0 || run.costUsd < average * (1 + params.thresholdPct / 100)) return undefined;
    const abovePct = round(100 * (run.costUsd / average - 1), 1);
    return {
      ...base,
      title: `${projectName}: run cost $${round(run.costUsd)}, ${abovePct}% above the mean of its last ${countOf(window.length, 'run')}`,
      detail: {
        run_id: run.id,
        cost_usd: round(run.costUsd, 4),
        mean_cost_usd: round(average, 4),
        above_mean_pct: abovePct,
        threshold_pct: params.thresholdPct,
      },
    };
  }
  return undefined;
}
