import type { AlertEvent } from '@setpoint/api-contract';
import { mean } from '@setpoint/foundation/statistics';

/** What a run-based rule needs to know about one run. */
export interface RunFacts {
  id: string;
  projectId: string;
  runtimeMinutes: number | null;
  costUsd: number | null;
}

export interface RuleParams {
  thresholdPct: number;
  windowRuns: number;
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
  if (event === 'sla_at_risk' && slaMinutes !== null && run.runtimeMinutes !== null) {
    const previous = earlier.find((candidate) => candidate.runtimeMinutes !== null)?.runtimeMinutes;
    const atRisk =
      run.runtimeMinutes <= slaMinutes &&
      run.runtimeMinutes >= params.atRiskFraction * slaMinutes &&
      previous !== undefined &&
      previous !== null &&
      run.runtimeMinutes > previous;
    if (!atRisk) return undefined;
    return {
      ...base,
      title: `${projectName}: runtime ${round(run.runtimeMinutes, 1)} min is rising toward its ${slaMinutes} min SLA`,
      detail: {
        run_id: run.id,
        runtime_minutes: round(run.runtimeMinutes, 3),
        previous_runtime_minutes: round(previous, 3),
        sla_minutes: slaMinutes,
        share_of_sla_pct: round((100 * run.runtimeMinutes) / slaMinutes, 1),
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
      title: `${projectName}: run cost $${round(run.costUsd)}, ${abovePct}% above the mean of its last ${window.length} runs`,
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
