/**
 * Run-to-run noise of ln(runtime) on an unchanged configuration. Jobs differ: a CPU-bound batch job
 * repeats within 2%, a skewed join within 30%. The model keeps a ladder of noise levels with prior
 * weights (what share of the fleet's jobs are that noisy) and lets each job's own repeats choose; with
 * no repeats yet, predictions mix the levels, which gives them the heavier tails real runs have.
 */
export interface NoiseLevels {
  /** Variances of ln(runtime), ascending. */
  variances: number[];
  /** Prior weights, summing to 1. */
  weights: number[];
}

/** Without repeated runs in the fleet: 2%, 6% and 15% run-to-run spread. */
export const defaultNoiseLevels: NoiseLevels = {
  variances: [0.02 ** 2, 0.06 ** 2, 0.15 ** 2],
  weights: [0.35, 0.45, 0.2],
};

const ladderQuantiles = [0.1, 0.35, 0.65, 0.9];
/** Share kept for a level well above anything the fleet showed: a new job may be noisier than all of them. */
const outlierWeight = 0.05;
const minimumVariance = 0.005 ** 2;

/** A ladder from the noise variances of the fleet's jobs that ran some configuration more than once. */
export function learnNoiseLevels(perJobVariances: readonly number[]): NoiseLevels {
  const usable = perJobVariances.filter((value) => Number.isFinite(value) && value > 0);
  if (usable.length < 3) return defaultNoiseLevels;
  const logs = usable.map((value) => Math.log(Math.max(minimumVariance, value))).sort((a, b) => a - b);
  const ladder: number[] = [];
  for (const q of ladderQuantiles) {
    const value = Math.exp(logs[Math.min(logs.length - 1, Math.floor(q * logs.length))] as number);
    // Levels closer than a factor 1.5 in variance carry the same information: keep one.
    if (ladder.length === 0 || value > (ladder.at(-1) as number) * 1.5) ladder.push(value);
  }
  const outlier = Math.max((ladder.at(-1) as number) * 4, defaultNoiseLevels.variances.at(-1) as number);
  const share = (1 - outlierWeight) / ladder.length;
  return { variances: [...ladder, outlier], weights: [...ladder.map(() => share), outlierWeight] };
}

/** Index of the level nearest (in log variance) to a job's own noise estimate. */
export function nearestNoiseLevel(levels: NoiseLevels, variance: number): number {
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  levels.variances.forEach((level, i) => {
    const distance = Math.abs(Math.log(level) - Math.log(Math.max(minimumVariance, variance)));
    if (distance < bestDistance) {
      bestDistance = distance;
      best = i;
    }
  });
  return best;
}

/**
 * Pooled within-configuration variance of ln(runtime) of one job's completed runs, or undefined when no
 * configuration ran at least twice.
 */
export function withinConfigurationVariance(
  logRuntimesByConfig: Iterable<readonly number[]>,
): number | undefined {
  let squares = 0;
  let degrees = 0;
  for (const logs of logRuntimesByConfig) {
    if (logs.length < 2) continue;
    let sum = 0;
    for (const value of logs) sum += value;
    const mean = sum / logs.length;
    for (const value of logs) squares += (value - mean) ** 2;
    degrees += logs.length - 1;
  }
  return degrees > 0 ? squares / degrees : undefined;
}
