import { coefficientOfVariation, linearFit, median } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import { chronological, type InsightRun, isFailed, isSuccessful, runtimeMinutes } from './insight-run.js';
import { slaHealth } from './sla-health.js';

export type InsightKind =
  | 'variable_data_size'
  | 'dormant'
  | 'sla_at_risk'
  | 'runtime_rising'
  | 'runtime_regression'
  | 'spot_interruptions'
  | 'repeated_failures'
  | 'over_provisioned'
  | 'external_config_change';

export interface Insight {
  kind: InsightKind;
  severity: 'info' | 'warning' | 'critical';
  /** One sentence a data platform manager can act on. */
  message: string;
  /** The run that triggered it, when one did. */
  runId: string | null;
}

const dayMs = 24 * 3600 * 1000;

/** Input sizes of the last runs vary by more than this coefficient of variation. */
export const variableDataSizeThreshold = 0.3;

export function variableDataSize(runs: readonly InsightRun[], window = 10): Insight | null {
  const sizes = chronological(runs)
    .filter((run) => run.inputBytes !== null)
    .slice(-window)
    .map((run) => run.inputBytes!);
  if (sizes.length < 4) return null;
  const variation = coefficientOfVariation(sizes);
  if (variation === null || variation <= variableDataSizeThreshold) return null;
  return {
    kind: 'variable_data_size',
    severity: 'info',
    message: `Input size varies by ±${Math.round(variation * 100)}% across the last ${sizes.length} runs; savings are measured per GB when that is fairer.`,
    runId: null,
  };
}

export function dormant(runs: readonly InsightRun[], now: number, days = 14): Insight | null {
  const starts = runs.flatMap((run) => (run.startedAt === null ? [] : [run.startedAt]));
  if (starts.length === 0) return null;
  const last = Math.max(...starts);
  const idleDays = Math.floor((now - last) / dayMs);
  if (idleDays < days) return null;
  return {
    kind: 'dormant',
    severity: 'info',
    message: `No runs for ${idleDays} days; the job may have been paused or removed.`,
    runId: null,
  };
}

/**
 * The project's SLA health is below its target: fewer of its last runs met the SLA than a recommendation
 * claims (`slaHealth`: the last 10 judged runs, a failure or any runtime over the SLA is a miss). One late
 * run among ten is within the target; the chip follows the rolling rate, not the latest run alone.
 */
export function slaAtRisk(runs: readonly InsightRun[], slaMinutes: number | null): Insight | null {
  const health = slaHealth(runs, slaMinutes);
  if (!health.atRisk || slaMinutes === null) return null;
  const newest = health.lastMiss;
  const newestText = !newest
    ? ''
    : newest.failed
      ? ' The newest miss failed.'
      : ` The newest miss took ${exactMinutes(newest.runtimeMinutes)}.`;
  return {
    kind: 'sla_at_risk',
    severity: 'critical',
    message: `${health.missed} of the last ${countOf(health.runs, 'run')} missed the ${exactMinutes(slaMinutes)} SLA: ${Math.round((health.hitRate ?? 0) * 100)}% met, below the ${Math.round(health.target * 100)}% target.${newestText}`,
    runId: newest?.runId ?? null,
  };
}

/**
 * The runtime trend of the last successful runs reaches the SLA within `horizon` more runs, while the SLA is
 * still met: an early warning, separate from the SLA health.
 */
export function runtimeRising(
  runs: readonly InsightRun[],
  slaMinutes: number | null,
  window = 10,
  horizon = 5,
): Insight | null {
  if (slaMinutes === null || slaMinutes <= 0) return null;
  const recent = chronological(runs)
    .filter(isSuccessful)
    .flatMap((run) => {
      const minutes = runtimeMinutes(run);
      return minutes === null ? [] : [{ run, minutes }];
    })
    .slice(-window);
  const latest = recent[recent.length - 1];
  if (!latest || latest.minutes > slaMinutes || recent.length < 4) return null;
  const fit = linearFit(recent.map((entry, index) => [index, entry.minutes] as const));
  if (!fit || fit.slope <= 0) return null;
  const projected = fit.intercept + fit.slope * (recent.length - 1 + horizon);
  if (projected < slaMinutes) return null;
  return {
    kind: 'runtime_rising',
    severity: 'warning',
    message: `Runtime is rising ${fit.slope.toFixed(1)} min per run and would reach the ${exactMinutes(slaMinutes)} SLA within ${horizon} runs.`,
    runId: latest.run.id,
  };
}

/** Minutes as exactly as a person compares them with an SLA: "4.02 min", "4 min". */
export function exactMinutes(minutes: number | null): string {
  if (minutes === null) return 'an unknown time';
  return `${Number(minutes.toFixed(2))} min`;
}

/**
 * The latest runs are much slower than earlier runs on the same configuration with a similar input
 * size: most likely the job's code or query plan changed.
 */
export function runtimeRegression(
  runs: readonly InsightRun[],
  ratio = 1.3,
  sizeTolerance = 0.2,
): Insight | null {
  const timed = chronological(runs)
    .filter(isSuccessful)
    .flatMap((run) => {
      const minutes = runtimeMinutes(run);
      return minutes === null ? [] : [{ run, minutes }];
    });
  const latest = timed[timed.length - 1];
  if (!latest) return null;
  const comparable = timed
    .slice(0, -1)
    .filter(
      (entry) =>
        entry.run.configKey === latest.run.configKey &&
        similarSize(entry.run.inputBytes, latest.run.inputBytes, sizeTolerance),
    );
  const recentSame = comparable.slice(-10);
  if (recentSame.length < 3) return null;
  const before = median(recentSame.map((entry) => entry.minutes))!;
  if (before <= 0 || latest.minutes < before * ratio) return null;
  return {
    kind: 'runtime_regression',
    severity: 'warning',
    message: `The latest run took ${latest.minutes.toFixed(1)} min, ${Math.round((latest.minutes / before - 1) * 100)}% longer than earlier runs on the same cluster and input size: likely a code change.`,
    runId: latest.run.id,
  };
}

function similarSize(a: number | null, b: number | null, tolerance: number): boolean {
  if (a === null || b === null) return a === b;
  const larger = Math.max(a, b);
  return larger === 0 || Math.abs(a - b) / larger <= tolerance;
}

export function spotInterruptions(runs: readonly InsightRun[], window = 10): Insight | null {
  const recent = chronological(runs).slice(-window);
  const hit = recent.filter((run) => (run.spotLosses ?? 0) > 0);
  if (hit.length === 0) return null;
  const nodes = hit.reduce((sum, run) => sum + (run.spotLosses ?? 0), 0);
  return {
    kind: 'spot_interruptions',
    severity: hit.length >= 3 ? 'warning' : 'info',
    message: `${hit.length} of the last ${countOf(recent.length, 'run')} lost spot nodes (${nodes} in total); consider on-demand workers if runtimes suffer.`,
    runId: hit[hit.length - 1]!.id,
  };
}

export function repeatedFailures(runs: readonly InsightRun[], threshold = 2): Insight | null {
  const ordered = chronological(runs);
  let streak = 0;
  for (let index = ordered.length - 1; index >= 0 && isFailed(ordered[index]!); index -= 1) streak += 1;
  if (streak < threshold) return null;
  return {
    kind: 'repeated_failures',
    severity: 'critical',
    message: `The last ${streak} runs failed; recommendations wait for a successful run.`,
    runId: ordered[ordered.length - 1]!.id,
  };
}

/** Median core time in tasks of recent successful runs below this means paid-for cores sat idle. */
export const overProvisionedUtilization = 0.4;

export function overProvisioned(runs: readonly InsightRun[], window = 5): Insight | null {
  const utilizations = chronological(runs)
    .filter((run) => isSuccessful(run) && run.coreUtilization !== null)
    .slice(-window)
    .map((run) => run.coreUtilization!);
  if (utilizations.length < 3) return null;
  const typical = median(utilizations)!;
  if (typical >= overProvisionedUtilization) return null;
  return {
    kind: 'over_provisioned',
    severity: 'info',
    message: `Core time in tasks was only ${Math.round(typical * 100)}% over the last ${utilizations.length} runs (median): the executors' cores sat idle the rest of the time.`,
    runId: null,
  };
}

/**
 * The latest configuration change was not made by Setpoint: a run's cluster differs from the run
 * before it and the run was not configured from a Setpoint recommendation.
 */
export function externalConfigChange(runs: readonly InsightRun[], window = 10): Insight | null {
  const ordered = chronological(runs).filter((run) => run.configKey !== null);
  const start = Math.max(1, ordered.length - window);
  for (let index = ordered.length - 1; index >= start; index -= 1) {
    const run = ordered[index]!;
    const previous = ordered[index - 1]!;
    if (run.configKey !== previous.configKey && run.recommendationId === null) {
      return {
        kind: 'external_config_change',
        severity: 'warning',
        message:
          'The job cluster was changed outside Setpoint; new recommendations start from the changed configuration.',
        runId: run.id,
      };
    }
  }
  return null;
}

export interface InsightContext {
  now: number;
  slaMinutes: number | null;
  dormantDays?: number;
}

/** Every insight that applies to a project, most severe first. */
export function projectInsights(runs: readonly InsightRun[], context: InsightContext): Insight[] {
  const found = [
    repeatedFailures(runs),
    slaAtRisk(runs, context.slaMinutes),
    runtimeRising(runs, context.slaMinutes),
    runtimeRegression(runs),
    externalConfigChange(runs),
    spotInterruptions(runs),
    overProvisioned(runs),
    variableDataSize(runs),
    dormant(runs, context.now, context.dormantDays),
  ].filter((insight): insight is Insight => insight !== null);
  const rank = { critical: 0, warning: 1, info: 2 } as const;
  return found.sort((a, b) => rank[a.severity] - rank[b.severity]);
}
