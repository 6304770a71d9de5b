import { mean } from '@setpoint/foundation/statistics';
import { normalCdf } from '../../../optimizer/normal-distribution.js';

/**
 * The spread a job's log runtime is given before its own runs say anything (10 %, the least spread a
 * log-normal of a few alike runs gets elsewhere), worth `priorDegrees` degrees of freedom: with few runs it
 * dominates, and as the job's runs accumulate it fades into their own variation.
 */
export const priorLogSpread = 0.1;
/** Two runs' worth: the evidence the advice already asks for before it tries anything. */
export const priorDegrees = 2;

/** How the spread of a standard-mode run was judged, for the explanation. */
export interface StandardModeSpread {
  /** The log-runtime standard deviation a standard run is judged with. */
  logSpread: number;
  /** Degrees of freedom of the job's own runs in the pooled estimate (runs − one per mode that has runs). */
  degrees: number;
  /** The standard runs' own spread was wider than the pooled one and was used instead. */
  ownWider: boolean;
}

/** Sum of squared deviations of the runtimes' logs from their own mean, and its degrees of freedom. */
function logDeviations(runtimes: readonly number[]): { sumOfSquares: number; degrees: number } {
  if (runtimes.length < 2) return { sumOfSquares: 0, degrees: 0 };
  const logs = runtimes.map(Math.log);
  const mu = mean(logs) ?? 0;
  return { sumOfSquares: logs.reduce((sum, x) => sum + (x - mu) ** 2, 0), degrees: logs.length - 1 };
}

/**
 * The spread of a standard-mode run's log runtime, pooled over the job's runs in both modes: the mode shifts a
 * run's level (start-up, slower scale-up), which each mode's own mean takes out, while the run-to-run variation
 * around that level is the job's (its data, the platform's noise), so the runs in the other mode are evidence
 * about it too. The prior (`priorLogSpread` worth `priorDegrees`) keeps a few alike runs from making a runtime
 * certain. The standard runs' own spread is never narrowed: where they vary more than the pooled estimate says
 * (standard mode's start-up and scale-up may add variation of their own), their own spread is used.
 */
export function standardModeSpread(
  optimizedRuntimes: readonly number[],
  standardRuntimes: readonly number[],
): StandardModeSpread {
  const optimized = logDeviations(optimizedRuntimes);
  const standard = logDeviations(standardRuntimes);
  const degrees = optimized.degrees + standard.degrees;
  const pooledVariance =
    (priorDegrees * priorLogSpread ** 2 + optimized.sumOfSquares + standard.sumOfSquares) /
    (priorDegrees + degrees);
  const ownVariance = standard.degrees > 0 ? standard.sumOfSquares / standard.degrees : 0;
  return {
    logSpread: Math.sqrt(Math.max(pooledVariance, ownVariance)),
    degrees,
    ownWider: ownVariance > pooledVariance,
  };
}

/** P(a standard run ≤ SLA): log-normal at the standard runs' own mean log runtime, with the given spread. */
export function probabilityStandardMeets(
  standardRuntimes: readonly number[],
  slaMinutes: number,
  logSpread: number,
): number {
  if (standardRuntimes.length === 0) return 0;
  const mu = mean(standardRuntimes.map(Math.log)) ?? 0;
  return normalCdf((Math.log(slaMinutes) - mu) / logSpread);
}
