import { median } from '@setpoint/foundation/statistics';
import { type LaunchWindow, placeLaunch } from '../cluster-shape/instance-timeline.js';

const hourMs = 3_600_000;

/** A node's launch window with the DBUs it accrues per hour, as kept beside a run's estimate. */
export interface PricedLaunchWindow extends LaunchWindow {
  dbusPerHour: number;
}

/** A run whose DBU estimate has met its bill in system.billing.usage. */
export interface ReconciledLaunch {
  windows: PricedLaunchWindow[];
  /** The launch delay the stored estimate placed its nodes with (null: the middle of each window). */
  launchDelayMs: number | null;
  estimatedDbus: number;
  /** Net of retractions and restatements, as reconciled. */
  billedDbus: number;
}

export interface LaunchDelayPolicy {
  /** Reconciled runs needed before a learned delay replaces the middle of the minute. */
  minimumRuns: number;
  /** Delays tried run from 0 to this, in steps of `stepMs`. */
  maxDelayMs: number;
  stepMs: number;
  /**
   * Runs whose middle-of-the-minute estimate misses the bill by more than this many times the median miss
   * (and by more than `outlierFloor`) are left out: bills first published wrong and not yet restated, runs
   * whose nodes did something the node timeline does not show. The set is fixed before any delay is tried,
   * so no delay can look better by pushing runs out of it.
   */
  outlierFactor: number;
  outlierFloor: number;
  /** How much a learned delay must cut the error of the middle-of-the-minute placement to be used. */
  requiredGain: number;
}

export const defaultLaunchDelayPolicy: LaunchDelayPolicy = {
  minimumRuns: 6,
  maxDelayMs: 10 * 60_000,
  stepMs: 1_000,
  outlierFactor: 4,
  outlierFloor: 0.01,
  requiredGain: 0.1,
};

export interface LaunchDelayFit {
  /** The delay new estimates place nodes with; null keeps the middle of each node's first minute. */
  launchDelayMs: number | null;
  /** Reconciled runs the fit could use. */
  runs: number;
  /** Mean |estimate − bill| / bill over the runs kept, each node in the middle of its first minute. */
  defaultError: number | null;
  /** The same with the best delay found (whether or not it is used). */
  learnedError: number | null;
  reason: string;
}

/** What the run's estimate would have been had its nodes been placed with `launchDelayMs`. */
export function dbusAtLaunchDelay(run: ReconciledLaunch, launchDelayMs: number | null): number {
  let shift = 0;
  for (const window of run.windows) {
    const earlierMs = placeLaunch(window, run.launchDelayMs) - placeLaunch(window, launchDelayMs);
    shift += (window.dbusPerHour * earlierMs) / hourMs;
  }
  return run.estimatedDbus + shift;
}

function usable(run: ReconciledLaunch): boolean {
  return (
    run.windows.length > 0 &&
    Number.isFinite(run.estimatedDbus) &&
    run.estimatedDbus > 0 &&
    Number.isFinite(run.billedDbus) &&
    run.billedDbus > 0
  );
}

function errorAt(run: ReconciledLaunch, delayMs: number | null): number {
  return Math.abs(dbusAtLaunchDelay(run, delayMs) - run.billedDbus) / run.billedDbus;
}

function meanError(runs: readonly ReconciledLaunch[], delayMs: number | null): number {
  return runs.reduce((sum, run) => sum + errorAt(run, delayMs), 0) / runs.length;
}

function withoutOutliers(runs: readonly ReconciledLaunch[], policy: LaunchDelayPolicy): ReconciledLaunch[] {
  const limit = Math.max(
    policy.outlierFloor,
    policy.outlierFactor * (median(runs.map((run) => errorAt(run, null))) ?? 0),
  );
  return runs.filter((run) => errorAt(run, null) <= limit);
}

/**
 * The workspace's launch delay — how long after a cluster is requested its nodes start to be billed —
 * learned from its own reconciled bills: the delay that brings the estimates closest to what was billed,
 * used only once enough runs agree on it and it beats the middle of the minute clearly. Nothing here
 * knows any platform's typical delay; a workspace whose delays vary keeps the default.
 */
export function learnLaunchDelay(
  reconciled: readonly ReconciledLaunch[],
  policy: LaunchDelayPolicy = defaultLaunchDelayPolicy,
): LaunchDelayFit {
  const runs = withoutOutliers(reconciled.filter(usable), policy);
  if (runs.length < policy.minimumRuns)
    return {
      launchDelayMs: null,
      runs: runs.length,
      defaultError: null,
      learnedError: null,
      reason: `${runs.length} reconciled runs with node timelines and plausible bills; ${policy.minimumRuns} needed`,
    };
  const defaultError = meanError(runs, null);
  let best = { delayMs: 0, error: Number.POSITIVE_INFINITY };
  for (let delayMs = 0; delayMs <= policy.maxDelayMs; delayMs += policy.stepMs) {
    const error = meanError(runs, delayMs);
    if (error < best.error) best = { delayMs, error };
  }
  const used = best.error <= defaultError * (1 - policy.requiredGain);
  return {
    launchDelayMs: used ? best.delayMs : null,
    runs: runs.length,
    defaultError,
    learnedError: best.error,
    reason: used
      ? `a ${best.delayMs / 1000} s launch delay cuts the estimate error from ${percent(defaultError)} to ${percent(best.error)} over ${runs.length} runs`
      : `no launch delay beats the middle of the minute (${percent(defaultError)}) clearly over ${runs.length} runs`,
  };
}

function percent(share: number): string {
  return `${(share * 100).toFixed(2)}%`;
}
