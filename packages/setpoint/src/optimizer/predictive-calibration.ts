import { configPoint } from './residual-kernel.js';
import type { Candidate } from './types.js';

/**
 * How much the model's predictive spread must be widened (or may be narrowed) so its probabilities come
 * true on jobs it was not fitted on. Learned by cross-validation over the fleet (`calibrated-prior.ts`)
 * in cells: by how many configurations the job has run (one, two, three or more — a first
 * recommendation leans on the fleet far more than a tenth one does) and by how far the configuration is
 * from the nearest one it ran (`configurationDistance`: the configuration itself, near, a step away, far).
 * A run again on a configuration the job ran is run-to-run noise alone: it is calibrated on the fleet's
 * repeats, and takes the near cell's multiplier when the fleet has none.
 */
export interface PredictiveCalibration {
  /** Spread multipliers, [configurations run bucket][distance bucket]. */
  spreadScale: number[][];
  /** Held-out predictions the scales were fitted on (0 when not calibrated). */
  cases: number;
}

export const runBuckets = 3;
export const distanceBuckets = 4;

export const identityCalibration: PredictiveCalibration = {
  spreadScale: Array.from({ length: runBuckets }, () => Array.from({ length: distanceBuckets }, () => 1)),
  cases: 0,
};

export function runBucket(configurationsRun: number): number {
  return Math.max(0, Math.min(runBuckets - 1, configurationsRun - 1));
}

/** The configuration itself (0: one the job ran), near (< 0.5), a step away (< 1.5), far. */
export function distanceBucket(distance: number): number {
  return distance === 0 ? 0 : distance < 0.5 ? 1 : distance < 1.5 ? 2 : 3;
}

/** The cell of a configuration the job ran, and the one its multiplier falls back on. */
export const sameConfigurationBucket = 0;
export const nearBucket = 1;

/**
 * How unlike the configurations a job ran a candidate is: log2 of the core-count ratio, half the log2 of
 * the memory-per-core ratio, and half a step for another family, to the nearest one it ran.
 */
export function configurationDistance(candidate: Candidate, ran: readonly Candidate[]): number {
  const point = configPoint(candidate);
  const cores = Math.log2(candidate.nodes * candidate.vcpusPerNode);
  let best = Number.POSITIVE_INFINITY;
  for (const other of ran) {
    const otherPoint = configPoint(other);
    const distance =
      Math.abs(cores - Math.log2(other.nodes * other.vcpusPerNode)) +
      0.5 * Math.abs((point.coordinates[2] as number) - (otherPoint.coordinates[2] as number)) +
      (point.family === otherPoint.family ? 0 : 0.5);
    best = Math.min(best, distance);
  }
  return best;
}

export function spreadScaleFor(
  calibration: PredictiveCalibration,
  configurationsRun: number,
  distance: number,
): number {
  return calibration.spreadScale[runBucket(configurationsRun)]?.[distanceBucket(distance)] ?? 1;
}
