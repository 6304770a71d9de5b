import { quantileOfSorted } from '@setpoint/foundation/statistics';
import { normalQuantile } from '../../optimizer/normal-distribution.js';
import type { Assessment, CandidateAssessment } from '../../optimizer/recommend.js';
import { candidateRateUsdPerHour, type Range } from '../../optimizer/types.js';
import type { EngineTrials, ShapeEntry, SpeedupPrior } from './cluster-model.js';

/**
 * An engine the job has never run on (Databricks: Photon) is a dimension the model has no evidence for:
 * its candidates are filtered out. When no configuration on the job's own engine is predicted to meet the
 * SLA, one run on the other engine is the only way to learn whether it can: an *engine trial*. The trial
 * is priced at the engine's own rate (Photon's DBU premium) and predicted from the same cluster on the
 * job's engine with an uncertain speed-up prior on the executors' share of the run (the driver's share
 * is not sped up). Once that run is measured, the engine is one more family the model has seen, and the
 * usual decisions keep or drop it by what it costs.
 */

export interface EngineTrialChoice<Shape> {
  entry: ShapeEntry<Shape>;
  baseline: CandidateAssessment;
  /** The trial as the decisions read a candidate (P(runtime ≤ SLA) under the prior, expected cost). */
  assessment: CandidateAssessment;
  runtimeS: Range;
  costUsd: Range;
}

/** Points of the baseline's runtime distribution and of the speed-up prior combined (a product grid). */
const gridPoints = 20;
/** z of the 90th percentile: the prior's spread from its 10th and 90th percentiles. */
const z90 = normalQuantile(0.9);

/** The probabilities at which a trial reads its baseline's runtime quantiles. */
export const trialGridProbabilities: readonly number[] = Array.from(
  { length: gridPoints },
  (_, i) => (i + 0.5) / gridPoints,
);

/**
 * The prior's speed-ups at the grid's probabilities: log-normal on each side of the median, each side's
 * spread from its own percentile (a prior read from a run is lopsided: Photon cannot speed up more than
 * the share of the run it runs allows).
 */
function speedupGrid(prior: SpeedupPrior): number[] {
  const below = Math.log(prior.mid / prior.low) / z90;
  const above = Math.log(prior.high / prior.mid) / z90;
  return trialGridProbabilities.map((p) => {
    const z = normalQuantile(p);
    return prior.mid * Math.exp((z < 0 ? below : above) * z);
  });
}

/**
 * The trial's runtime distribution: the baseline's runtime quantiles (at `trialGridProbabilities`) × the
 * prior's speed-ups, each combination `fixed + max(0, t − fixed) / s` (the fixed part — the driver's time —
 * is not sped up).
 */
export function trialRuntimes(
  baselineQuantiles: readonly number[],
  prior: SpeedupPrior,
  fixedS: number,
): number[] {
  const speedups = speedupGrid(prior);
  const runtimes: number[] = [];
  for (const t of baselineQuantiles) {
    const fixed = Math.min(fixedS, t);
    for (const s of speedups) runtimes.push(fixed + (t - fixed) / s);
  }
  return runtimes.sort((a, b) => a - b);
}

/** Runtime quantiles of trial baselines at `trialGridProbabilities`, by the baseline's candidate id. */
export type TrialBaselineQuantiles = Readonly<Record<string, readonly number[]>>;

/**
 * The quantiles the trials of these baselines read, for those the assessment holds: an engine trial's CPU
 * is these searches over the runtime mixture (`trialGridProbabilities.length` per baseline, hundreds of
 * components each), so they are computed where the assessment is (the optimizer pass's worker thread) and
 * handed to the decision with it.
 */
export function trialBaselineQuantiles(
  assessment: Assessment,
  baselineIds: readonly string[],
): Record<string, number[]> {
  const byId = new Map(assessment.assessments.map((entry) => [entry.candidate.id, entry]));
  const quantiles: Record<string, number[]> = {};
  for (const id of baselineIds) {
    const baseline = byId.get(id);
    if (baseline && !Object.hasOwn(quantiles, id))
      quantiles[id] = assessment.mixture.quantiles(baseline.index, trialGridProbabilities);
  }
  return quantiles;
}

/**
 * How far below the likeliest trial's P(runtime ≤ SLA) a cheaper trial may be: a trial is run to learn
 * whether the engine can meet the SLA, so it is made where it is likeliest to, not where it barely might.
 */
const trialProbabilitySlack = 0.05;

/**
 * A bound on how badly a trial may overrun: P(runtime ≤ `limitS`) under the prior, a failure counted as an
 * overrun, at least `minProbability`.
 */
export interface TrialOverrunBound {
  limitS: number;
  minProbability: number;
}

/**
 * The engine trial to run, or null: the trial configurations whose baseline the model assessed, with
 * P(runtime ≤ SLA) ≥ `minProbability` under the prior, an expected cost within `budgetUsd` (and, when
 * asked, within a share of the same cluster's on the job's engine) and, when asked, within an overrun
 * bound; of those within `trialProbabilitySlack` of the likeliest, the cheapest.
 */
export function chooseEngineTrial<Shape>(context: {
  trials: EngineTrials<Shape>;
  assessment: Assessment;
  slaS: number;
  fixedS: number;
  /** The job's billed time per run outside its runtime, at the trial's rate (`RecommendInput.overheadSeconds`). */
  overheadS?: number;
  budgetUsd: number;
  minProbability: number;
  /** When set, a trial's expected cost must be at most this share of its baseline's (the engine pays). */
  maxCostShareOfBaseline?: number;
  /** When set, a trial must be this likely to end within the bound's limit. */
  overrun?: TrialOverrunBound;
  /** The baselines' quantiles computed with the assessment (`trialBaselineQuantiles`); a missing one is computed here. */
  baselineQuantiles?: TrialBaselineQuantiles;
}): EngineTrialChoice<Shape> | null {
  const { trials, assessment, overrun } = context;
  const byId = new Map(assessment.assessments.map((entry) => [entry.candidate.id, entry]));
  const options: EngineTrialChoice<Shape>[] = [];
  for (const trial of trials.entries) {
    const baseline = byId.get(trial.baselineId);
    if (!baseline) continue;
    const { option, runtimes } = assessTrial(trial.entry, baseline, assessment, trials.speedup, context);
    if (
      option.assessment.probabilityMeetsSla >= context.minProbability &&
      option.assessment.expectedCostUsd <= context.budgetUsd &&
      option.assessment.expectedCostUsd <=
        (context.maxCostShareOfBaseline ?? Number.POSITIVE_INFINITY) * baseline.expectedCostUsd &&
      (!overrun ||
        shareWithin(runtimes, overrun.limitS) * (1 - baseline.probabilityFails) >= overrun.minProbability)
    )
      options.push(option);
  }
  const likeliest = Math.max(...options.map((option) => option.assessment.probabilityMeetsSla));
  let best: EngineTrialChoice<Shape> | null = null;
  for (const option of options) {
    if (option.assessment.probabilityMeetsSla < likeliest - trialProbabilitySlack) continue;
    if (!best || option.assessment.expectedCostUsd < best.assessment.expectedCostUsd) best = option;
  }
  return best;
}

/** The share of a trial's runtimes within a limit. */
const shareWithin = (runtimes: readonly number[], limitS: number) =>
  runtimes.filter((t) => t <= limitS).length / runtimes.length;

/** A trial as the decisions read it, and its runtimes under the prior (sorted). */
function assessTrial<Shape>(
  entry: ShapeEntry<Shape>,
  baseline: CandidateAssessment,
  assessment: Assessment,
  speedup: SpeedupPrior,
  context: { slaS: number; fixedS: number; overheadS?: number; baselineQuantiles?: TrialBaselineQuantiles },
): { option: EngineTrialChoice<Shape>; runtimes: number[] } {
  const quantiles =
    context.baselineQuantiles?.[baseline.candidate.id] ??
    assessment.mixture.quantiles(baseline.index, trialGridProbabilities);
  const runtimes = trialRuntimes(quantiles, speedup, context.fixedS);
  const meets = shareWithin(runtimes, context.slaS);
  const expectedRuntimeS = runtimes.reduce((sum, t) => sum + t, 0) / runtimes.length;
  const ratePerS = candidateRateUsdPerHour(entry.candidate) / 3600;
  const overheadUsd = ratePerS * (context.overheadS ?? 0);
  const runtimeS: Range = {
    low: quantileOfSorted(runtimes, 0.1),
    mid: quantileOfSorted(runtimes, 0.5),
    high: quantileOfSorted(runtimes, 0.9),
  };
  const option: EngineTrialChoice<Shape> = {
    entry,
    baseline,
    assessment: {
      candidate: entry.candidate,
      index: baseline.index,
      expectedCostUsd: ratePerS * expectedRuntimeS + overheadUsd,
      expectedRuntimeS,
      probabilityMeetsSla: meets * (1 - baseline.probabilityFails),
      probabilityFails: baseline.probabilityFails,
      expectedImprovementUsd: 0,
      tried: false,
    },
    runtimeS,
    costUsd: {
      low: runtimeS.low * ratePerS + overheadUsd,
      mid: runtimeS.mid * ratePerS + overheadUsd,
      high: runtimeS.high * ratePerS + overheadUsd,
    },
  };
  return { option, runtimes };
}
