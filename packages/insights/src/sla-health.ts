import { chronological, type InsightRun, isFailed, isSuccessful, runtimeMinutes } from './insight-run.js';

/** How many of a project's newest runs its SLA health is judged on. */
export const slaHealthWindow = 10;

/**
 * The share of those runs that must meet the SLA: the confidence a recommendation claims, P(runtime ≤ SLA)
 * ≥ 0.9 (`docs/optimizer.md`). Below it the project's SLA health is at risk.
 */
export const slaHealthTarget = 0.9;

export type SlaOutcome = 'met' | 'missed';

/** What the SLA is judged on for one run. */
export interface SlaRun {
  id: string;
  /** The platform's result state (SUCCESS, FAILED…); null when not reported. */
  status: string | null;
  runtimeMinutes: number | null;
}

/**
 * What one run says about its SLA — Setpoint's one definition of a miss: a run that failed missed it (it
 * delivered nothing in time), and a run that succeeded missed it when its runtime is above the SLA by any
 * amount (4.02 min against 4 is a miss). Null when it says nothing: no SLA, no result or runtime yet, or
 * canceled.
 */
export function slaOutcome(run: SlaRun, slaMinutes: number | null): SlaOutcome | null {
  if (slaMinutes === null || !(slaMinutes > 0)) return null;
  if (isFailed(run)) return 'missed';
  if (!isSuccessful(run) || run.runtimeMinutes === null) return null;
  return run.runtimeMinutes > slaMinutes ? 'missed' : 'met';
}

export interface SlaHealth {
  /** Runs judged: the newest `window` with an outcome. */
  runs: number;
  met: number;
  missed: number;
  /** met ÷ runs; null without an SLA or a judged run. */
  hitRate: number | null;
  target: number;
  /** The rate is below the target. */
  atRisk: boolean;
  /** The newest missed run among them. */
  lastMiss: { runId: string; runtimeMinutes: number | null; failed: boolean } | null;
}

/** The rolling SLA-hit rate of runs given oldest first, and whether it is below the target. */
export function rollingSlaHealth(
  runs: readonly SlaRun[],
  slaMinutes: number | null,
  options: { window?: number; target?: number } = {},
): SlaHealth {
  const window = options.window ?? slaHealthWindow;
  const target = options.target ?? slaHealthTarget;
  const judged = runs
    .flatMap((run) => {
      const outcome = slaOutcome(run, slaMinutes);
      return outcome === null ? [] : [{ run, outcome }];
    })
    .slice(-window);
  const missed = judged.filter((entry) => entry.outcome === 'missed');
  const newestMiss = missed.at(-1);
  const hitRate = judged.length === 0 ? null : (judged.length - missed.length) / judged.length;
  return {
    runs: judged.length,
    met: judged.length - missed.length,
    missed: missed.length,
    hitRate,
    target,
    atRisk: hitRate !== null && hitRate < target,
    lastMiss: newestMiss
      ? {
          runId: newestMiss.run.id,
          runtimeMinutes: newestMiss.run.runtimeMinutes,
          failed: isFailed(newestMiss.run),
        }
      : null,
  };
}

/** A project's SLA health from its runs (any order). */
export function slaHealth(
  runs: readonly InsightRun[],
  slaMinutes: number | null,
  options: { window?: number; target?: number } = {},
): SlaHealth {
  return rollingSlaHealth(
    chronological(runs).map((run) => ({
      id: run.id,
      status: run.status,
      runtimeMinutes: runtimeMinutes(run),
    })),
    slaMinutes,
    options,
  );
}
