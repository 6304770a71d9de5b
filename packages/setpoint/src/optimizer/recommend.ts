import { instanceFamily } from './config-features.js';
import { failureProbabilities } from './failure-risk.js';
import type { FleetPrior } from './fleet-prior.js';
import type { RuntimeMixture } from './runtime-mixture.js';
import { type AnalogSettings, defaultAnalogSettings, RuntimeModel } from './runtime-model.js';
import {
  type Candidate,
  candidateRateUsdPerHour,
  type Observation,
  type Phase,
  type Preference,
  type Range,
} from './types.js';

/** Limits a project puts on what may be recommended. */
export interface ProjectBounds {
  allowedFamilies?: readonly string[];
  minNodes?: number;
  maxNodes?: number;
}

export interface OptimizerSettings {
  preference: Preference;
  /** Required P(runtime ≤ SLA) for a recommendation (economy and balanced). */
  confidence: number;
  /**
   * Required P(runtime ≤ SLA) of the first recommendation (economy and balanced): a team judges
   * Setpoint by its first move, made on one run, so it must be safer than later ones.
   */
  firstConfidence: number;
  /** Informative runs after the first before the model is trusted (LEARNING → OPTIMIZING). */
  learningRuns: number;
  /**
   * Required P(runtime ≤ SLA) of learning runs after the first recommendation: lower than `confidence` so
   * the model can learn from informative configurations, never so low that the SLA is ignored.
   */
  learningConfidence: number;
  /** A learning run may cost at most this multiple of the best known configuration. */
  maxLearningCostMultiple: number;
  /** Hysteresis: change a working configuration only for at least this expected saving (fraction). */
  minSaving: number;
  /** Try an untried configuration only when its expected improvement is at least this fraction of the cost. */
  minExplorationGain: number;
  /** Required P(runtime ≤ SLA) of an untried configuration tried after learning (exploiting uses `confidence`). */
  explorationConfidence: number;
  /** With no SLA, the runtime may grow at most by this fraction over the best known configuration. */
  maxRuntimeIncrease: number;
  /** How the runtime model weighs fleet analogs against the generic model. */
  model: AnalogSettings;
}

export const defaultOptimizerSettings: OptimizerSettings = {
  preference: 'economy',
  confidence: 0.9,
  firstConfidence: 0.95,
  learningRuns: 3,
  learningConfidence: 0.05,
  maxLearningCostMultiple: 3,
  minSaving: 0.03,
  minExplorationGain: 0.0001,
  explorationConfidence: 0.9,
  maxRuntimeIncrease: 0.1,
  model: defaultAnalogSettings,
};

/**
 * The first recommendation exploits (it is the change a team judges Setpoint by), or else tries a
 * confident candidate not expected to cost more; the remaining learning runs maximize constrained expected
 * improvement within the learning risk bounds; after learning, keep learning while an untried confident
 * candidate promises enough, else exploit when the saving clears the hysteresis, else stay.
 */
type DecisionMode = 'first' | 'exploring' | 'optimizing';

export interface RecommendInput {
  candidates: readonly Candidate[];
  /** Every run of this job since its last rebase, oldest first. */
  observations: readonly Observation[];
  /** The configuration the job runs on now. */
  currentCandidateId: string;
  slaSeconds?: number;
  bounds?: ProjectBounds;
}

export interface CandidateAssessment {
  candidate: Candidate;
  index: number;
  expectedCostUsd: number;
  expectedRuntimeS: number;
  probabilityMeetsSla: number;
  probabilityFails: number;
  expectedImprovementUsd: number;
  tried: boolean;
}

export interface Recommendation {
  candidateId: string;
  phase: Phase;
  currentLearningIteration: number;
  totalLearningIterations: number;
  predictedRuntimeS: Range;
  predictedCostUsd: Range;
  probabilityMeetsSla: number;
  /** Expected saving against the best known configuration, as a fraction of its cost. */
  expectedSaving: number;
  slaSeconds: number;
  /** Whether `slaSeconds` is the project's SLA (else: the best known runtime plus `maxRuntimeIncrease`). */
  hasSla: boolean;
  /** What the prediction rests on. */
  basis: RecommendationBasis;
  explanation: string;
}

/** The evidence behind a recommendation's probability, as the explanation states it. */
export interface RecommendationBasis {
  /** Runs of this job the model conditioned on, and on how many configurations. */
  runs: number;
  configurations: number;
  /** Fleet jobs in the prior, and how many of them were shipped with Setpoint. */
  fleetJobs: number;
  shippedJobs: number;
  /** Held-out predictions the probabilities were calibrated on (0: not calibrated). */
  calibrationCases: number;
  /** The model components that carry the most weight for this job. */
  closest: Array<{ label: string; weight: number }>;
}

/** A reusable optimizer for one catalog: the model's fixed parts are computed once. */
export class JobOptimizer {
  private readonly model: RuntimeModel;
  private readonly prior: FleetPrior;
  private readonly settings: OptimizerSettings;

  constructor(
    prior: FleetPrior,
    candidates: readonly Candidate[],
    settings: Partial<OptimizerSettings> = {},
  ) {
    this.prior = prior;
    this.settings = { ...defaultOptimizerSettings, ...settings };
    this.model = new RuntimeModel(prior, candidates, this.settings.model);
  }

  /** Scores every candidate: expected cost (failures included), P(runtime ≤ SLA), expected improvement. */
  assess(input: RecommendInput): Assessment {
    const { candidates, observations } = input;
    const current = currentOf(input);
    const mixture = this.model.predict(observations);
    const failures = failureProbabilities(candidates, observations, this.prior.failure, (i) =>
      mixture.analogFailureRate(i),
    );
    const cheapestTried = bestKnown(input, Number.POSITIVE_INFINITY) ?? current;
    const slaSeconds =
      input.slaSeconds ??
      meanRuntime(observations, cheapestTried.id) * (1 + this.settings.maxRuntimeIncrease);
    const currentRuntime = meanRuntime(observations, current.id);
    const currentMeetsSla =
      currentRuntime <= slaSeconds &&
      !observations.some((observation) => observation.candidateId === current.id && !observation.completed);
    const best = bestKnown(input, slaSeconds);
    const bestKnownCost = best ? meanCost(observations, best.id) : meanCost(observations, cheapestTried.id);
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const assessments = candidates.map((candidate, i): CandidateAssessment => {
      const pFail = failures[i]!;
      const ratePerSecond = candidateRateUsdPerHour(candidate) / 3600;
      const expectedRuntimeS = mixture.expectedRuntime(i);
      // A failed run is paid for (about half a run on average) and the job must run again elsewhere.
      const failedRunCost = ratePerSecond * expectedRuntimeS * 0.5 + bestKnownCost;
      return {
        candidate,
        index: i,
        expectedRuntimeS,
        expectedCostUsd: (1 - pFail) * ratePerSecond * expectedRuntimeS + pFail * failedRunCost,
        probabilityMeetsSla: (1 - pFail) * mixture.probabilityBelow(i, slaSeconds),
        probabilityFails: pFail,
        expectedImprovementUsd:
          (1 - pFail) * mixture.expectedImprovement(i, ratePerSecond, bestKnownCost, slaSeconds),
        tried: tried.has(candidate.id),
      };
    });
    return {
      assessments,
      slaSeconds,
      current: assessments.find((entry) => entry.candidate.id === current.id)!,
      currentCostUsd: currentMeetsSla ? meanCost(observations, current.id) : Number.POSITIVE_INFINITY,
      bestKnown: best ? assessments.find((entry) => entry.candidate.id === best.id) : undefined,
      bestKnownCostUsd: bestKnownCost,
      mixture,
    };
  }

  recommend(input: RecommendInput): Recommendation {
    const assessment = this.assess(input);
    const { slaSeconds, current, mixture } = assessment;
    const settings = this.settings;
    const runsAfterFirst = Math.max(0, input.observations.length - 1);
    const learning = runsAfterFirst < settings.learningRuns;
    const mode: DecisionMode = runsAfterFirst === 0 ? 'first' : learning ? 'exploring' : 'optimizing';
    const choice = this.choose(assessment, input.bounds, mode);
    const chosen =
      choice ?? (Number.isFinite(assessment.currentCostUsd) ? current : (assessment.bestKnown ?? current));
    const phase: Phase = learning ? 'LEARNING' : choice ? 'OPTIMIZING' : 'MONITORING';
    const referenceCost = Number.isFinite(assessment.currentCostUsd)
      ? assessment.currentCostUsd
      : assessment.bestKnownCostUsd;
    const ratePerSecond = candidateRateUsdPerHour(chosen.candidate) / 3600;
    const basis: RecommendationBasis = {
      runs: input.observations.length,
      configurations: new Set(input.observations.map((observation) => observation.candidateId)).size,
      fleetJobs: this.prior.jobs,
      shippedJobs: this.prior.shippedJobs,
      calibrationCases: this.prior.calibration.cases,
      closest: mixture.leadingComponents(2),
    };
    const runtimeS: Range = {
      low: mixture.quantile(chosen.index, 0.1),
      mid: mixture.quantile(chosen.index, 0.5),
      high: mixture.quantile(chosen.index, 0.9),
    };
    const costUsd: Range = {
      low: runtimeS.low * ratePerSecond,
      mid: runtimeS.mid * ratePerSecond,
      high: runtimeS.high * ratePerSecond,
    };
    return {
      candidateId: chosen.candidate.id,
      phase,
      currentLearningIteration: Math.min(runsAfterFirst, settings.learningRuns),
      totalLearningIterations: settings.learningRuns,
      predictedRuntimeS: runtimeS,
      predictedCostUsd: costUsd,
      probabilityMeetsSla: chosen.probabilityMeetsSla,
      expectedSaving: (referenceCost - chosen.expectedCostUsd) / referenceCost,
      slaSeconds,
      hasSla: input.slaSeconds !== undefined,
      basis,
      explanation: explain(
        { ...chosen, runtimeS, costUsd },
        current,
        referenceCost,
        slaSeconds,
        input.slaSeconds !== undefined,
        basis,
      ),
    };
  }

  /** The decision rules; undefined means "keep the current configuration". */
  private choose(
    assessment: Assessment,
    bounds: ProjectBounds | undefined,
    mode: DecisionMode,
  ): CandidateAssessment | undefined {
    const {
      preference,
      minSaving,
      minExplorationGain,
      confidence,
      learningConfidence,
      explorationConfidence,
      maxLearningCostMultiple,
    } = this.settings;
    const { current, currentCostUsd, bestKnownCostUsd } = assessment;
    const allowed = assessment.assessments.filter((entry) => withinBounds(entry.candidate, bounds));
    const mustMove = !Number.isFinite(currentCostUsd) || !withinBounds(current.candidate, bounds);
    const required = mode === 'first' ? this.settings.firstConfidence : confidence;
    const safe = allowed.filter((entry) => entry.probabilityMeetsSla >= required);
    const switchIfWorthIt = (
      best: CandidateAssessment | undefined,
      gain: (entry: CandidateAssessment) => boolean,
    ) => {
      if (!best || best.candidate.id === current.candidate.id) return undefined;
      return mustMove || gain(best) ? best : undefined;
    };

    if (preference === 'performance') {
      const budget = Number.isFinite(currentCostUsd) ? currentCostUsd : bestKnownCostUsd;
      const fastest = minimumBy(
        allowed.filter((entry) => entry.expectedCostUsd <= budget),
        (entry) => entry.expectedRuntimeS,
      );
      return switchIfWorthIt(
        fastest,
        (entry) => entry.expectedRuntimeS < current.expectedRuntimeS * (1 - minSaving),
      );
    }
    if (preference === 'balanced') {
      const noSlower = safe.filter((entry) => entry.expectedRuntimeS <= current.expectedRuntimeS);
      const cheapestNoSlower = minimumBy(noSlower, (entry) => entry.expectedCostUsd);
      return switchIfWorthIt(
        cheapestNoSlower,
        (entry) => entry.expectedCostUsd <= currentCostUsd * (1 - minSaving),
      );
    }

    const cheapest = minimumBy(safe, (entry) => entry.expectedCostUsd);
    const exploit = switchIfWorthIt(
      cheapest,
      (entry) => entry.expectedCostUsd <= currentCostUsd * (1 - minSaving),
    );
    if (mode === 'first' && (exploit || mustMove)) return exploit ?? rescue(allowed, mustMove);
    const explorable =
      mode === 'first'
        ? safe.filter((entry) => entry.expectedCostUsd <= currentCostUsd)
        : mode === 'exploring'
          ? allowed.filter(
              (entry) =>
                entry.probabilityMeetsSla >= learningConfidence &&
                entry.expectedCostUsd <= maxLearningCostMultiple * bestKnownCostUsd,
            )
          : allowed.filter((entry) => entry.probabilityMeetsSla >= explorationConfidence);
    const untried = explorable.filter((entry) => !entry.tried);
    const explore = maximumBy(untried, (entry) => entry.expectedImprovementUsd);
    if (explore && explore.expectedImprovementUsd >= minExplorationGain * bestKnownCostUsd) return explore;
    return exploit ?? rescue(allowed, mustMove);
  }
}

/** When the current configuration misses the SLA or failed and nothing is confidently safe: the likeliest to meet it. */
function rescue(allowed: readonly CandidateAssessment[], mustMove: boolean): CandidateAssessment | undefined {
  if (!mustMove) return undefined;
  return maximumBy(allowed, (entry) => entry.probabilityMeetsSla - 1e-6 * entry.expectedCostUsd);
}

export interface Assessment {
  assessments: CandidateAssessment[];
  slaSeconds: number;
  current: CandidateAssessment;
  /** Mean cost of the current configuration, or Infinity when it failed or missed the SLA. */
  currentCostUsd: number;
  bestKnown: CandidateAssessment | undefined;
  bestKnownCostUsd: number;
  mixture: RuntimeMixture;
}

function withinBounds(candidate: Candidate, bounds: ProjectBounds | undefined): boolean {
  if (!bounds) return true;
  if (bounds.minNodes !== undefined && candidate.nodes < bounds.minNodes) return false;
  if (bounds.maxNodes !== undefined && candidate.nodes > bounds.maxNodes) return false;
  if (bounds.allowedFamilies && !bounds.allowedFamilies.includes(instanceFamily(candidate.instanceType))) {
    return false;
  }
  return true;
}

function currentOf(input: RecommendInput): Candidate {
  const current = input.candidates.find((candidate) => candidate.id === input.currentCandidateId);
  if (!current)
    throw new RangeError(`current configuration ${input.currentCandidateId} is not in the catalog`);
  return current;
}

/** Cheapest tried configuration whose completed runs met the runtime limit on average. */
function bestKnown(input: RecommendInput, maxRuntimeS: number): Candidate | undefined {
  let best: Candidate | undefined;
  let bestCost = Number.POSITIVE_INFINITY;
  for (const candidate of input.candidates) {
    const runs = input.observations.filter((observation) => observation.candidateId === candidate.id);
    if (runs.length === 0 || runs.some((observation) => !observation.completed)) continue;
    if (meanRuntime(runs, candidate.id) > maxRuntimeS) continue;
    const cost = meanCost(runs, candidate.id);
    if (cost < bestCost) {
      bestCost = cost;
      best = candidate;
    }
  }
  return best;
}

function meanRuntime(observations: readonly Observation[], candidateId: string): number {
  return meanOf(observations, candidateId, (observation) => observation.runtimeS);
}

function meanCost(observations: readonly Observation[], candidateId: string): number {
  return meanOf(observations, candidateId, (observation) => observation.costUsd);
}

function meanOf(
  observations: readonly Observation[],
  candidateId: string,
  value: (observation: Observation) => number,
): number {
  let sum = 0;
  let count = 0;
  for (const observation of observations) {
    if (observation.candidateId !== candidateId || !observation.completed) continue;
    sum += value(observation);
    count++;
  }
  return count > 0 ? sum / count : Number.NaN;
}

function minimumBy<T>(items: readonly T[], key: (item: T) => number): T | undefined {
  let best: T | undefined;
  let bestKey = Number.POSITIVE_INFINITY;
  for (const item of items) {
    const value = key(item);
    if (value < bestKey) {
      bestKey = value;
      best = item;
    }
  }
  return best;
}

function maximumBy<T>(items: readonly T[], key: (item: T) => number): T | undefined {
  return minimumBy(items, (item) => -key(item));
}

function explain(
  chosen: CandidateAssessment & { runtimeS: Range; costUsd: Range },
  current: CandidateAssessment,
  currentCost: number,
  slaSeconds: number,
  hasSla: boolean,
  basis: RecommendationBasis,
): string {
  const c = chosen.candidate;
  const minutes = (seconds: number) => (seconds / 60).toFixed(1);
  const dollars = (usd: number) => usd.toFixed(2);
  const what =
    chosen.candidate.id === current.candidate.id
      ? `keep ${c.nodes} × ${c.instanceType}`
      : `${c.nodes} × ${c.instanceType}`;
  const now = Number.isFinite(currentCost)
    ? `vs $${dollars(currentCost)} now on ${current.candidate.nodes} × ${current.candidate.instanceType}`
    : `the current ${current.candidate.nodes} × ${current.candidate.instanceType} failed or missed the SLA`;
  const limit = hasSla
    ? `P(runtime ≤ SLA ${minutes(slaSeconds)} min) = ${chosen.probabilityMeetsSla.toFixed(2)}`
    : `no SLA set: P(runtime ≤ ${minutes(slaSeconds)} min, the best seen + 10%) = ${chosen.probabilityMeetsSla.toFixed(2)}`;
  return (
    `${what}: predicted ${minutes(chosen.runtimeS.mid)} min (${minutes(chosen.runtimeS.low)}–${minutes(chosen.runtimeS.high)}) ` +
    `at $${dollars(chosen.costUsd.mid)} (${dollars(chosen.costUsd.low)}–${dollars(chosen.costUsd.high)}) ${now}; ` +
    `${limit}, P(failure) = ${chosen.probabilityFails.toFixed(2)}; based on ${describeBasis(basis)}`
  );
}

/** What a recommendation rests on, in words (the optimizer's explanation and the service's share it). */
export function describeBasis(basis: RecommendationBasis): string {
  const own = basis.fleetJobs - basis.shippedJobs;
  const fleet =
    basis.fleetJobs === 0
      ? 'no fleet prior'
      : `a fleet prior of ${basis.fleetJobs} job(s) (${basis.shippedJobs} shipped with Setpoint, ${own} of this organization)`;
  const closest = basis.closest
    .map((entry) => `${entry.label} ${Math.round(entry.weight * 100)}%`)
    .join(', ');
  const calibrated =
    basis.calibrationCases > 0
      ? `probabilities calibrated on ${basis.calibrationCases} held-out predictions`
      : 'probabilities not calibrated (fleet too small)';
  return (
    `${basis.runs} run(s) of this job on ${basis.configurations} configuration(s) and ${fleet}` +
    `${closest ? `, closest: ${closest}` : ''}; ${calibrated}`
  );
}
