import { createRandom, deriveSeed, type Random } from '@setpoint/foundation/random';
import { evenlySpaced } from './evenly-spaced.js';
import { type FleetJob, type FleetPrior, learnFleetPrior } from './fleet-prior.js';
import {
  configurationDistance,
  distanceBucket,
  distanceBuckets,
  nearBucket,
  type PredictiveCalibration,
  runBuckets,
  sameConfigurationBucket,
} from './predictive-calibration.js';
import { RuntimeModel } from './runtime-model.js';
import type { Candidate, Observation } from './types.js';

export interface CalibrationOptions {
  /** Folds of the inner cross-validation (at most one per job). */
  folds: number;
  /** Simulated cold starts per fold; each is followed to three configurations. */
  scenariosPerFold: number;
  seed: number;
}

export const defaultCalibrationOptions: CalibrationOptions = { folds: 5, scenariosPerFold: 24, seed: 1 };

/** Spread multipliers tried; the one whose held-out tails come true best is kept. */
const scales = [
  0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.4, 1.6, 1.8, 2, 2.3, 2.6, 3,
];
/** Upper-tail probabilities checked (runtime above the p-quantile) and the lower one (below 10%). */
const upperTails = [0.8, 0.9, 0.95];
const lowerTail = 0.1;
/** A cell with fewer cases takes the multiplier of its whole run bucket. */
const minimumCellCases = 60;
const minimumJobs = 6;

/**
 * A held-out run read against a prediction: the predicted CDF at the run's runtime under each spread
 * multiplier (`scales`, in order). Only these numbers are kept, not the prediction: a calibration holds
 * tens of thousands of cases, and the predictions behind them (a mixture of hundreds of components over
 * every configuration played, hundreds of thousands of small typed arrays in all) were most of the
 * learning worker's memory and, once freed, left the allocator's arenas fragmented behind it.
 */
type Case = readonly number[];

/**
 * Learns the fleet prior and then how far its predictions must be widened to come true: an inner
 * cross-validation in which each fold of the fleet plays the new job against a prior learned from the
 * other folds — a cold start on a random configuration, then a second and a third — and every
 * configuration a decision could pick is compared with a measured run there. The spread multiplier per
 * number of configurations run is the one whose tail shares come closest to what they claim.
 */
export function learnCalibratedPrior(
  jobs: readonly FleetJob[],
  options: Partial<CalibrationOptions> = {},
): FleetPrior {
  const settings = { ...defaultCalibrationOptions, ...options };
  const prior = learnFleetPrior(jobs);
  const usable = jobs.filter((job) => completedConfigurations(job).length >= 6);
  if (usable.length < minimumJobs) return prior;
  const folds = Math.min(settings.folds, usable.length);
  const cells: Case[][][] = Array.from({ length: runBuckets }, () =>
    Array.from({ length: distanceBuckets }, () => []),
  );
  for (let fold = 0; fold < folds; fold++) {
    const heldOut = usable.filter((_, i) => i % folds === fold);
    const inner = learnFleetPrior(usable.filter((_, i) => i % folds !== fold));
    const random = createRandom(deriveSeed(settings.seed, 'calibration', fold));
    const perJob = Math.ceil(settings.scenariosPerFold / heldOut.length);
    for (const job of heldOut) {
      const configurations = evenlySpaced(completedConfigurations(job), configurationsPerJob);
      const model = new RuntimeModel(inner, configurations);
      const runs = completedRunsById(job);
      for (let scenario = 0; scenario < perJob; scenario++) {
        collectScenario(model, configurations, runs, random, cells);
      }
    }
  }
  const spreadScale = cells.map((row) => {
    const whole = bestScale(row.flat());
    const scales = row.map((cell) => (cell.length >= minimumCellCases ? bestScale(cell) : whole));
    // without repeats in the fleet, a run again on a configuration the job ran is judged as a near one
    if ((row[sameConfigurationBucket]?.length ?? 0) < minimumCellCases)
      scales[sameConfigurationBucket] = scales[nearBucket] as number;
    return scales;
  });
  const calibration: PredictiveCalibration = {
    spreadScale,
    cases: cells.flat().reduce((sum, cell) => sum + cell.length, 0),
  };
  return { ...prior, calibration };
}

function completedConfigurations(job: FleetJob): Candidate[] {
  const done = new Set(job.observations.filter((o) => o.completed).map((o) => o.candidateId));
  return job.candidates.filter((candidate) => done.has(candidate.id));
}

function completedRunsById(job: FleetJob): Map<string, Observation[]> {
  const byId = new Map<string, Observation[]>();
  for (const observation of job.observations) {
    if (!observation.completed) continue;
    const list = byId.get(observation.candidateId) ?? [];
    list.push(observation);
    byId.set(observation.candidateId, list);
  }
  return byId;
}

/**
 * One held-out job played from a random cold start to three configurations: after each, every other
 * configuration is predicted and compared with one of its runs, and so is another run of each
 * configuration played (where it was measured more than once).
 */
function collectScenario(
  model: RuntimeModel,
  configurations: readonly Candidate[],
  runs: ReadonlyMap<string, Observation[]>,
  random: Random,
  cells: Case[][][],
): void {
  const order = shuffled(configurations, random).slice(0, 3);
  const observations: Observation[] = [];
  order.forEach((candidate, step) => {
    const own = runs.get(candidate.id) ?? [];
    observations.push(own[random.int(own.length)] as Observation);
    const mixture = model.predict(observations);
    const ran = order.slice(0, step + 1);
    const tried = new Set(ran.map((entry) => entry.id));
    // a run again where the job ran: another of that configuration's runs, where it has one
    ran.forEach((candidate, k) => {
      const others = (runs.get(candidate.id) ?? []).filter((run) => run !== observations[k]);
      if (others.length === 0) return;
      const run = others[random.int(others.length)] as Observation;
      cells[step]?.[sameConfigurationBucket]?.push(
        mixture.cdfAtLogScales(configurations.indexOf(candidate), Math.log(run.runtimeS), scales),
      );
    });
    configurations.forEach((other, index) => {
      if (tried.has(other.id)) return;
      const otherRuns = runs.get(other.id) ?? [];
      const run = otherRuns[random.int(otherRuns.length)] as Observation;
      const cell = distanceBucket(configurationDistance(other, ran));
      cells[step]?.[cell]?.push(mixture.cdfAtLogScales(index, Math.log(run.runtimeS), scales));
    });
  });
}

/**
 * Configurations of a held-out job played (evenly spaced): a cold start and its predictions over a few
 * dozen configurations say what hundreds do, in a fraction of the model's work.
 */
const configurationsPerJob = 60;

/** Cases read per bucket when choosing its multiplier (evenly spaced): more add time, not precision. */
const maximumCases = 1000;

/** The multiplier whose tail shares are closest to their claims (squared error over the checked tails). */
function bestScale(all: readonly Case[]): number {
  if (all.length < 30) return 1;
  const step = Math.max(1, Math.floor(all.length / maximumCases));
  const cases = all.filter((_, i) => i % step === 0);
  const errorAt = (scaleIndex: number) => {
    const above = upperTails.map(() => 0);
    let below = 0;
    for (const entry of cases) {
      const u = entry[scaleIndex] as number;
      upperTails.forEach((p, t) => {
        if (u > p) above[t]! += 1;
      });
      if (u < lowerTail) below += 1;
    }
    let error = (below / cases.length - lowerTail) ** 2;
    upperTails.forEach((p, t) => {
      error += ((above[t] as number) / cases.length - (1 - p)) ** 2;
    });
    return error;
  };
  // Every other multiplier first, then the neighbours of the best of those: the tail errors fall and
  // rise once along the multipliers.
  const errors = new Map<number, number>();
  const errorOf = (i: number) => {
    let error = errors.get(i);
    if (error === undefined) {
      error = errorAt(i);
      errors.set(i, error);
    }
    return error;
  };
  let best = 0;
  for (let i = 0; i < scales.length; i += 2) if (errorOf(i) < errorOf(best)) best = i;
  for (const i of [best - 1, best + 1])
    if (i >= 0 && i < scales.length && errorOf(i) < errorOf(best)) best = i;
  return scales[best] as number;
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
