import { instanceFamily } from './config-features.js';
import { failureProbabilities } from './failure-risk.js';
import type { FleetPrior } from './fleet-prior.js';
import { constrainedExpectedImprovement, normalCdf, normalQuantile } from './normal-distribution.js';
import { RuntimeModel } from './runtime-model.js';
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
  /** Informative runs after the first before the model is trusted (LEARNING → OPTIMIZING). */
  learningRuns: number;
  /** A learning run may cost at most this multiple of the best known configuration. */
  maxLearningCostMultiple: number;
  /** Hysteresis: change a working configuration only for at least this expected saving (fraction). */
  minSaving: number;
  /** With no SLA, the runtime may grow at most by this fraction over the best known configuration. */
  maxRuntimeIncrease: number;
}

export const defaultOptimizerSettings: OptimizerSettings = {
  preference: 'economy',
  confidence: 0.9,
  learningRuns: 3,
  maxLearningCostMultiple: 2,
  minSaving: 0.03,
  maxRuntimeIncrease: 0.1,
};

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
  runtimeS: Range;
  costUsd: Range;
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
  explanation: string;
}

const z90 = normalQuantile(0.9);

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
    this.model = new RuntimeModel(prior, candidates);
    this.settings = { ...defaultOptimizerSettings, ...settings };
  }

  assess(input: RecommendInput): {
    assessments: CandidateAssessment[];
    slaSeconds: number;
    incumbent: Candidate;
  } {
    const { candidates, observations } = input;
    const predictions = this.model.predict(observations);
    const failures = failureProbabilities(candidates, observations, this.prior.memoryRisk);
    const incumbent = bestKnown(input, Number.POSITIVE_INFINITY) ?? currentOf(input);
    const slaSeconds =
      input.slaSeconds ?? meanRuntime(observations, incumbent.id) * (1 + this.settings.maxRuntimeIncrease);
    const incumbentCost = meanCost(observations, incumbent.id);
    const best = bestKnown(input, slaSeconds);
    const bestCost = best ? meanCost(observations, best.id) : incumbentCost;
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const assessments = candidates.map((candidate, i): CandidateAssessment => {
      const { mu, sigma } = predictions[i]!;
      const pFail = failures[i]!;
      const ratePerSecond = candidateRateUsdPerHour(candidate) / 3600;
      const expectedRuntimeS = Math.exp(mu + (sigma * sigma) / 2);
      const runtimeS = {
        low: Math.exp(mu - z90 * sigma),
        mid: Math.exp(mu),
        high: Math.exp(mu + z90 * sigma),
      };
      const failedRunCost = ratePerSecond * expectedRuntimeS * 0.5 + incumbentCost;
      return {
        candidate,
        runtimeS,
        costUsd: {
          low: runtimeS.low * ratePerSecond,
          mid: runtimeS.mid * ratePerSecond,
          high: runtimeS.high * ratePerSecond,
        },
        expectedRuntimeS,
        expectedCostUsd: (1 - pFail) * ratePerSecond * expectedRuntimeS + pFail * failedRunCost,
        probabilityMeetsSla: (1 - pFail) * normalCdf((Math.log(slaSeconds) - mu) / sigma),
        probabilityFails: pFail,
        expectedImprovementUsd:
          (1 - pFail) * constrainedExpectedImprovement(mu, sigma, ratePerSecond, bestCost, slaSeconds),
        tried: tried.has(candidate.id),
      };
    });
    return { assessments, slaSeconds, incumbent: best ?? incumbent };
  }

  recommend(input: RecommendInput): Recommendation {
    const { assessments, slaSeconds, incumbent } = this.assess(input);
    const settings = this.settings;
    const runsAfterFirst = Math.max(0, input.observations.length - 1);
    const learning = runsAfterFirst < settings.learningRuns;
    const incumbentAssessment = assessments.find((entry) => entry.candidate.id === incumbent.id)!;
    const incumbentCost = meanCost(input.observations, incumbent.id);
    const allowed = assessments.filter((entry) => withinBounds(entry.candidate, input.bounds));
    const safe = allowed.filter(
      (entry) =>
        entry.probabilityMeetsSla >= settings.confidence &&
        (!learning || entry.expectedCostUsd <= settings.maxLearningCostMultiple * incumbentCost),
    );

    const choice = this.choose(safe, allowed, incumbentAssessment, incumbentCost, learning);
    const chosen = choice ?? incumbentAssessment;
    const phase: Phase = learning ? 'LEARNING' : choice ? 'OPTIMIZING' : 'MONITORING';
    const expectedSaving = (incumbentCost - chosen.expectedCostUsd) / incumbentCost;
    return {
      candidateId: chosen.candidate.id,
      phase,
      currentLearningIteration: Math.min(runsAfterFirst, settings.learningRuns),
      totalLearningIterations: settings.learningRuns,
      predictedRuntimeS: chosen.runtimeS,
      predictedCostUsd: chosen.costUsd,
      probabilityMeetsSla: chosen.probabilityMeetsSla,
      expectedSaving,
      slaSeconds,
      explanation: explain(
        chosen,
        incumbentAssessment,
        incumbentCost,
        slaSeconds,
        input.observations.length,
        this.prior,
      ),
    };
  }

  private choose(
    safe: readonly CandidateAssessment[],
    allowed: readonly CandidateAssessment[],
    incumbent: CandidateAssessment,
    incumbentCost: number,
    learning: boolean,
  ): CandidateAssessment | undefined {
    const { preference, minSaving } = this.settings;
    if (preference === 'performance') {
      const affordable = allowed.filter((entry) => entry.expectedCostUsd <= incumbentCost);
      const fastest = minimumBy(affordable, (entry) => entry.expectedRuntimeS);
      return fastest && fastest.expectedRuntimeS < incumbent.expectedRuntimeS * (1 - minSaving)
        ? fastest
        : undefined;
    }
    if (preference === 'balanced') {
      const score = (entry: CandidateAssessment) => entry.expectedCostUsd * entry.expectedRuntimeS;
      const best = minimumBy(safe, score);
      return best && score(best) < score(incumbent) * (1 - minSaving) ? best : undefined;
    }
    const cheapest = minimumBy(safe, (entry) => entry.expectedCostUsd);
    const exploit =
      cheapest &&
      cheapest.candidate.id !== incumbent.candidate.id &&
      cheapest.expectedCostUsd <= incumbentCost * (1 - minSaving)
        ? cheapest
        : undefined;
    if (!learning && exploit) return exploit;
    const explore = maximumBy(
      safe.filter((entry) => !entry.tried),
      (entry) => entry.expectedImprovementUsd,
    );
    if (explore && explore.expectedImprovementUsd >= minSaving * incumbentCost) return explore;
    return exploit;
  }
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
  chosen: CandidateAssessment,
  incumbent: CandidateAssessment,
  incumbentCost: number,
  slaSeconds: number,
  runs: number,
  prior: FleetPrior,
): string {
  const c = chosen.candidate;
  const minutes = (seconds: number) => (seconds / 60).toFixed(1);
  const dollars = (usd: number) => usd.toFixed(2);
  const what =
    chosen === incumbent ? `keep ${c.nodes} × ${c.instanceType}` : `${c.nodes} × ${c.instanceType}`;
  return (
    `${what}: predicted ${minutes(chosen.runtimeS.mid)} min (${minutes(chosen.runtimeS.low)}–${minutes(chosen.runtimeS.high)}) ` +
    `at $${dollars(chosen.costUsd.mid)} (${dollars(chosen.costUsd.low)}–${dollars(chosen.costUsd.high)}) ` +
    `vs $${dollars(incumbentCost)} for the best known ${incumbent.candidate.nodes} × ${incumbent.candidate.instanceType}; ` +
    `P(runtime ≤ ${minutes(slaSeconds)} min) = ${chosen.probabilityMeetsSla.toFixed(2)}, ` +
    `P(failure) = ${chosen.probabilityFails.toFixed(2)}; learned from ${runs} run(s) and a fleet prior of ${prior.jobs} job(s)`
  );
}
