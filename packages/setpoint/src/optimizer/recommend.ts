import { countOf } from '@setpoint/foundation/words';
import { instanceFamily } from './config-features.js';
import { configurationName } from './configuration-name.js';
import { failureProbabilities } from './failure-risk.js';
import type { FleetPrior } from './fleet-prior.js';
import type { SummarizedConfiguration } from './observed-configurations.js';
import type { LeadingComponent, RuntimeMixture } from './runtime-mixture.js';
import { type AnalogSettings, defaultAnalogSettings, RuntimeModel } from './runtime-model.js';
import {
  defaultSafeExpansion,
  type ExpansionBound,
  metConfigurations,
  type SafeExpansionSettings,
  safeByExpansion,
} from './safe-expansion.js';
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

/**
 * Candidates the platform would not run as chosen: an interruptible market (spot) that the service swaps
 * for its on-demand twin when P(runtime ≤ SLA) is at least `feasibleConfidence` (the SLA is likely met) but
 * under `minConfidence` (the margin an interruption eats). Such a choice ends as its twin, so the optimizer
 * judges it as the twin — already among the candidates — and never chooses it. Markets the platform never
 * swaps (a fixed market, or a twin it may not run) have no entry.
 */
export interface MarketSwaps {
  /** Candidate id → its on-demand twin's candidate id. */
  twins: Readonly<Record<string, string>>;
  minConfidence: number;
  feasibleConfidence: number;
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
  /**
   * SLA misses a job may spend on learning runs. N ≥ 1 (3 by default) is the standard search: learning
   * runs need only P(runtime ≤ SLA) ≥ `learningConfidence`, and learning ends once N runs after the first
   * recommendation failed or missed the SLA, or after `learningRuns` runs. 0 is safe learning, a team's
   * choice: every learning run is held to P(runtime ≤ SLA) ≥ `safeLearningConfidence` and is expected to
   * cost no more than the best known configuration; learning ends after `learningRuns` runs or when no such
   * run is worth it.
   */
  learningMissBudget: number;
  /** At most this many runs (counting the first recommendation) are learning runs. */
  learningRuns: number;
  /** Required P(runtime ≤ SLA) of safe learning runs (a miss budget of 0): the confidence of any change. */
  safeLearningConfidence: number;
  /**
   * A safe learning run may be expected to cost at most this multiple of the best known configuration that
   * met the SLA (the cold start's cost while none has). A bigger, faster cluster costs more per hour, and
   * the model's expected cost is tail-heavy: on Scout (72 leave-one-workload-out searches) 1.0 captured
   * 11.9% of the hindsight saving, 1.5 captured 22.7% at 3.4% of runs missing, 2 and 3 captured less.
   */
  safeLearningCostMultiple: number;
  /**
   * Safe learning may also try a smaller cluster that a configuration which met the SLA bounds by its
   * slack (`safe-expansion.ts`), below the model's confidence; null: only what the model is confident of.
   */
  safeExpansion: SafeExpansionSettings | null;
  /**
   * Required P(runtime ≤ SLA) of learning runs under a miss budget (N ≥ 1): lower than `confidence` so the
   * model can learn from informative configurations, never so low that the SLA is ignored.
   */
  learningConfidence: number;
  /**
   * No untried configuration is run when it may overrun the SLA badly: P(runtime ≤ `maxOverrun` × SLA) must
   * be at least `overrunConfidence`, whatever the miss budget (a failure counts as an overrun: the job
   * runs again).
   */
  maxOverrun: number;
  overrunConfidence: number;
  /**
   * The overrun bound of learning runs under a miss budget (N ≥ 1): looser, the price of the faster search
   * the team chose; every other untried configuration keeps `overrunConfidence`.
   */
  budgetOverrunConfidence: number;
  /**
   * Learning has converged, and ends, when no learning candidate's expected improvement reaches this
   * fraction of the best known cost (0: learning ends only on the budgets; a convergence stop did not
   * improve the measured sweeps, see docs/optimizer.md).
   */
  learningStopGain: number;
  /** A learning run may cost at most this multiple of the best known configuration. */
  maxLearningCostMultiple: number;
  /**
   * A learning run may fail with at most this probability: a late run is the learning phase's price, a
   * failed one is a team's broken pipeline (and a run paid for twice).
   */
  maxLearningFailureRisk: number;
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
  learningMissBudget: 0,
  learningRuns: 8,
  safeLearningConfidence: 0.9,
  safeLearningCostMultiple: 1.5,
  safeExpansion: defaultSafeExpansion,
  learningConfidence: 0.05,
  maxOverrun: 1.5,
  overrunConfidence: 0.97,
  budgetOverrunConfidence: 0.9,
  learningStopGain: 0,
  maxLearningCostMultiple: 3,
  maxLearningFailureRisk: 0.15,
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
  /**
   * Earlier completed runs of the same segment held only as per-configuration totals (they left the
   * window the observations come from): only the runtime model conditions on them.
   */
  summarized?: readonly SummarizedConfiguration[];
  /** The configuration the job runs on now. */
  currentCandidateId: string;
  slaSeconds?: number;
  bounds?: ProjectBounds;
  /** Which candidates the service would swap for an on-demand twin, and when (only with an SLA). */
  marketSwaps?: MarketSwaps;
  /**
   * Time each run is billed beyond its runtime whatever the configuration (a cluster's start-up, bootstrap
   * and idle minutes when the platform bills them), priced at each candidate's own rate: a bigger cluster's
   * idle minutes cost more. Observed costs include it; default 0.
   */
  overheadSeconds?: number;
}

/** With no SLA, before any run of the job completed: no runtime bound, only the risk of failure limits. */
export const noRuntimeBoundYet = 'no SLA set and no run completed yet: no runtime bound until one does';

/** What a candidate's run costs beyond its runtime: the job's billed overhead at the candidate's rate. */
export function overheadCostUsd(candidate: Candidate, overheadSeconds: number): number {
  return (candidateRateUsdPerHour(candidate) / 3600) * overheadSeconds;
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
  learningBudget: LearningBudget;
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
  /**
   * Set when the choice is an untried configuration tried for what it may save rather than for what it is
   * expected to cost (the explore rule). It is never expected to cost more than now, but may be expected
   * to cost more than the best known configuration when the job runs on a dearer one.
   */
  exploration?: Exploration;
  /**
   * Set when the choice is a safe learning run below the model's confidence, made because a configuration
   * that met the SLA bounds it (safe expansion, `safe-expansion.ts`).
   */
  expansion?: ExpansionBound;
  explanation: string;
}

/** Why an untried configuration is worth a run: what it may save against what it is expected to cost. */
export interface Exploration {
  /** E[max(best known cost − its cost, 0)]: what trying it is expected to save a run. */
  expectedImprovementUsd: number;
  bestKnownCostUsd: number;
  /** Its expected cost (runtime model mean, with the job's billed overhead). */
  expectedCostUsd: number;
}

/** The learning phase's risk budget, as a recommendation reports it. */
export interface LearningBudget {
  /** Learning runs at most, counting the first recommendation. */
  maxRuns: number;
  /** SLA misses learning runs may spend after the first recommendation; null: safe learning (none by choice). */
  missBudget: number | null;
  /**
   * Runs the learning phase configured after the first recommendation (runs 3 to `maxRuns` + 1) that failed
   * or missed the SLA; under a budget, at most the budget: learning ends when it is spent, and later misses
   * are the keep/move rule's, never the budget's.
   */
  missesSpent: number;
}

/** The evidence behind a recommendation's probability, as the explanation states it. */
export interface RecommendationBasis {
  /** Runs of this job the model conditioned on, and on how many configurations. */
  runs: number;
  configurations: number;
  /** How many of `runs` it read as per-configuration totals (runs that left the window); absent: none. */
  summarizedRuns?: number;
  /** Fleet jobs in the prior, and how many of them were shipped with Setpoint. */
  fleetJobs: number;
  shippedJobs: number;
  /** Held-out predictions the probabilities were calibrated on (0: not calibrated). */
  calibrationCases: number;
  /** The model components that carry the most weight for this job (`source`: the fleet job's id). */
  closest: LeadingComponent[];
}

/**
 * Below this P(runtime ≤ SLA) a configuration is predicted to miss (its median runtime is over the SLA):
 * whatever its record, it is no configuration to go back to.
 */
export const predictedToMeetConfidence = 0.5;

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
    const mixture = this.model.predict(observations, input.summarized);
    const failures = failureProbabilities(candidates, observations, this.prior.failure, (i) =>
      mixture.analogFailureRate(i),
    );
    const cheapestCompleted = bestKnown(input, Number.POSITIVE_INFINITY, this.settings.confidence);
    // With no SLA the runtime bound is the cheapest completed configuration's runtime + 10%; while no run
    // has completed there is none, and only the risk of failure limits the choice.
    const slaSeconds =
      input.slaSeconds ??
      (cheapestCompleted
        ? meanRuntime(observations, cheapestCompleted.id) * (1 + this.settings.maxRuntimeIncrease)
        : Number.POSITIVE_INFINITY);
    const currentRuntime = meanRuntime(observations, current.id);
    const currentMeetsSla =
      currentRuntime <= slaSeconds &&
      !observations.some((observation) => observation.candidateId === current.id && !observation.completed) &&
      !missesTooOften(observations, current.id, slaSeconds, this.settings.confidence);
    const best = bestKnown(input, slaSeconds, this.settings.confidence);
    // no configuration met the SLA: the cheapest that completed, else what the failed runs cost (at least
    // what a completed run there would have cost)
    const bestKnownCost = best
      ? meanCost(observations, best.id)
      : cheapestCompleted
        ? meanCost(observations, cheapestCompleted.id)
        : observations.reduce((sum, observation) => sum + observation.costUsd, 0) / observations.length;
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const overheadS = input.overheadSeconds ?? 0;
    const assessments = candidates.map((candidate, i): CandidateAssessment => {
      const pFail = failures[i]!;
      const ratePerSecond = candidateRateUsdPerHour(candidate) / 3600;
      const expectedRuntimeS = mixture.expectedRuntime(i);
      const overheadUsd = overheadCostUsd(candidate, overheadS);
      // A failed run is paid for (about half a run on average, its overhead whole) and the job must run again elsewhere.
      const failedRunCost = ratePerSecond * expectedRuntimeS * 0.5 + overheadUsd + bestKnownCost;
      // the runtime's share of the best known cost: what this candidate's runtime must beat
      const bestRuntimeCost = bestKnownCost - overheadUsd;
      return {
        candidate,
        index: i,
        expectedRuntimeS,
        expectedCostUsd:
          (1 - pFail) * (ratePerSecond * expectedRuntimeS + overheadUsd) + pFail * failedRunCost,
        probabilityMeetsSla: (1 - pFail) * mixture.probabilityBelow(i, slaSeconds),
        probabilityFails: pFail,
        expectedImprovementUsd:
          bestRuntimeCost > 0
            ? (1 - pFail) * mixture.expectedImprovement(i, ratePerSecond, bestRuntimeCost, slaSeconds)
            : 0,
        tried: tried.has(candidate.id),
      };
    });
    return {
      assessments,
      slaSeconds,
      hasSla: input.slaSeconds !== undefined,
      current: assessments.find((entry) => entry.candidate.id === current.id)!,
      baseline:
        assessments.find((entry) => entry.candidate.id === observations[0]?.candidateId) ??
        assessments.find((entry) => entry.candidate.id === current.id)!,
      currentCostUsd: currentMeetsSla ? meanCost(observations, current.id) : Number.POSITIVE_INFINITY,
      bestKnown: best ? assessments.find((entry) => entry.candidate.id === best.id) : undefined,
      bestKnownCostUsd: bestKnownCost,
      mixture,
    };
  }

  /**
   * Whether an untried candidate may overrun the runtime limit badly: P(runtime ≤ `maxOverrun` × limit),
   * failures counted as overruns, below `overrunConfidence`. Never true of a configuration the job ran.
   * Computed on demand: only the candidates a rule would choose are asked.
   */
  overrunCheck(
    assessment: Assessment,
    confidence = this.settings.overrunConfidence,
  ): (entry: CandidateAssessment) => boolean {
    const overrunS = assessment.slaSeconds * this.settings.maxOverrun;
    const checked = new Map<number, boolean>();
    return (entry) => {
      if (entry.tried || !Number.isFinite(overrunS)) return false;
      let bad = checked.get(entry.index);
      if (bad === undefined) {
        const within =
          (1 - entry.probabilityFails) * assessment.mixture.probabilityBelow(entry.index, overrunS);
        bad = within < confidence;
        checked.set(entry.index, bad);
      }
      return bad;
    };
  }

  recommend(input: RecommendInput): Recommendation {
    return this.recommendFrom(this.assess(input), input);
  }

  /** `recommend` on an assessment already made of the same input (the model's predictions are the costly part). */
  recommendFrom(assessment: Assessment, input: RecommendInput): Recommendation {
    const { slaSeconds, current, mixture } = assessment;
    const settings = this.settings;
    const runsAfterFirst = Math.max(0, input.observations.length - 1);
    const budget = learningBudgetOf(settings, input.observations, slaSeconds);
    const withinLearningBudget =
      runsAfterFirst < budget.maxRuns &&
      (budget.missBudget === null || budget.missesSpent < budget.missBudget);
    const mode: DecisionMode =
      runsAfterFirst === 0 ? 'first' : withinLearningBudget ? 'exploring' : 'optimizing';
    const { choice, learning, exploring, expansion } = this.choose(
      assessment,
      input,
      mode,
      this.overrunCheck(assessment),
    );
    const chosen =
      choice ?? (Number.isFinite(assessment.currentCostUsd) ? current : (assessment.bestKnown ?? current));
    const phase: Phase = learning ? 'LEARNING' : choice ? 'OPTIMIZING' : 'MONITORING';
    const referenceCost = Number.isFinite(assessment.currentCostUsd)
      ? assessment.currentCostUsd
      : assessment.bestKnownCostUsd;
    const ratePerSecond = candidateRateUsdPerHour(chosen.candidate) / 3600;
    const summarized = (input.summarized ?? []).filter((entry) => entry.runs > 0);
    const summarizedRuns = summarized.reduce((sum, entry) => sum + entry.runs, 0);
    const basis: RecommendationBasis = {
      runs: input.observations.length + summarizedRuns,
      configurations: new Set([
        ...input.observations.map((observation) => observation.candidateId),
        ...summarized.map((entry) => entry.candidateId),
      ]).size,
      ...(summarizedRuns > 0 ? { summarizedRuns } : {}),
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
    const overheadUsd = overheadCostUsd(chosen.candidate, input.overheadSeconds ?? 0);
    const costUsd: Range = {
      low: runtimeS.low * ratePerSecond + overheadUsd,
      mid: runtimeS.mid * ratePerSecond + overheadUsd,
      high: runtimeS.high * ratePerSecond + overheadUsd,
    };
    return {
      candidateId: chosen.candidate.id,
      phase,
      currentLearningIteration: Math.min(runsAfterFirst, budget.maxRuns),
      totalLearningIterations: budget.maxRuns,
      learningBudget: budget,
      predictedRuntimeS: runtimeS,
      predictedCostUsd: costUsd,
      probabilityMeetsSla: chosen.probabilityMeetsSla,
      expectedSaving: (referenceCost - chosen.expectedCostUsd) / referenceCost,
      slaSeconds,
      hasSla: input.slaSeconds !== undefined,
      basis,
      ...(exploring && choice
        ? {
            exploration: {
              expectedImprovementUsd: choice.expectedImprovementUsd,
              bestKnownCostUsd: assessment.bestKnownCostUsd,
              expectedCostUsd: choice.expectedCostUsd,
            },
          }
        : {}),
      ...(expansion ? { expansion } : {}),
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

  /**
   * The decision rules: the choice (undefined means "keep the current configuration") and whether it is a
   * learning run. A learning run is taken only while the learning budget lasts and the model has not
   * converged; otherwise the optimizing rules decide.
   */
  private choose(
    assessment: Assessment,
    input: RecommendInput,
    mode: DecisionMode,
    mayOverrunBadly: (entry: CandidateAssessment) => boolean,
  ): {
    choice: CandidateAssessment | undefined;
    learning: boolean;
    exploring: boolean;
    expansion?: ExpansionBound;
  } {
    const {
      preference,
      learningMissBudget,
      safeLearningConfidence,
      learningConfidence,
      learningStopGain,
      maxLearningCostMultiple,
      maxLearningFailureRisk,
      minExplorationGain,
    } = this.settings;
    const { bestKnownCostUsd } = assessment;
    // the service swaps markets only for a project's SLA (without one there is no margin to keep)
    const swaps = input.slaSeconds === undefined ? undefined : input.marketSwaps;
    const allowed = assessment.assessments.filter(
      (entry) => withinBounds(entry.candidate, input.bounds) && !swappedForTwin(entry, assessment, swaps),
    );
    // Safe learning (no miss budget): an untried configuration is a probe for a saving, never expected to
    // cost more than the cheapest configuration known to meet the SLA. While none has, learning runs are
    // held to the cold start's cost, and only a move to meet the SLA may cost more. A miss budget buys
    // dearer learning runs, up to maxLearningCostMultiple × the best known cost.
    const budgeted = learningMissBudget > 0;
    const limits: RuleLimits = {
      untriedCostLimitUsd: budgeted || !assessment.bestKnown ? Number.POSITIVE_INFINITY : bestKnownCostUsd,
      keepBestMet: !budgeted,
    };
    if (mode !== 'exploring') {
      const firstLearns = mode === 'first' && learningBudgetOf(this.settings, [], 0).maxRuns > 0;
      return {
        ...this.chooseByRules(assessment, allowed, mode, mayOverrunBadly, limits),
        learning: firstLearns,
      };
    }
    if (preference !== 'economy') {
      return {
        ...this.chooseByRules(assessment, allowed, 'optimizing', mayOverrunBadly, limits),
        learning: true,
      };
    }
    // The bounds every learning run keeps: untried, not likelier to fail than maxLearningFailureRisk, within
    // the cost bound, and never where it may overrun the SLA badly (less surely so under a miss budget).
    const overruns = budgeted
      ? this.overrunCheck(assessment, this.settings.budgetOverrunConfidence)
      : mayOverrunBadly;
    const costLimitUsd = budgeted
      ? maxLearningCostMultiple * bestKnownCostUsd
      : this.settings.safeLearningCostMultiple * safeProbeCostLimit(assessment, input.observations);
    // Safe learning also tries what a configuration that met the SLA bounds by its slack (safe expansion):
    // the model's confidence lags at the SLA's edge, where the cheapest configurations are. The bound caps
    // such a run's runtime below the SLA, so its cost too, whatever the model's tails say.
    const expanded = this.expandedSafeSet(assessment, input, budgeted);
    const overheadS = input.overheadSeconds ?? 0;
    const bounded = allowed.filter((entry) => {
      if (entry.tried || entry.probabilityFails > maxLearningFailureRisk) return false;
      const bound = expanded.get(entry.candidate.id);
      if (!bound) return entry.expectedCostUsd <= costLimitUsd && !overruns(entry);
      const boundCostUsd =
        (candidateRateUsdPerHour(entry.candidate) / 3600) * bound.boundRuntimeS +
        overheadCostUsd(entry.candidate, overheadS);
      return Math.min(entry.expectedCostUsd, boundCostUsd) <= costLimitUsd;
    });
    // A learning run: the candidate of largest constrained expected improvement among those likely enough
    // to meet the SLA — safe learning holds it to the confidence of any change; a miss budget lowers the
    // floor to learningConfidence.
    const floor = budgeted ? learningConfidence : safeLearningConfidence;
    const learnable = bounded.filter(
      (entry) => entry.probabilityMeetsSla >= floor || expanded.has(entry.candidate.id),
    );
    // While no run has met the SLA there is no feasible configuration to improve on: the improvement is
    // measured against the cheapest run that missed, which only a cheaper (and likely slower) candidate
    // beats. Under a miss budget, learn where the SLA is likeliest met instead (constrained optimization's
    // probability of feasibility), the cheaper of two equally likely. Safe learning leaves a configuration
    // that misses to the keep/move rule: a move to meet the SLA is no probe.
    if (budgeted && input.slaSeconds !== undefined && !assessment.bestKnown) {
      const feasibilityRun = maximumBy(
        bounded,
        (entry) => entry.probabilityMeetsSla - 1e-6 * entry.expectedCostUsd,
      );
      if (feasibilityRun) return { choice: feasibilityRun, learning: true, exploring: false };
    }
    const learningRun = maximumBy(learnable, (entry) => entry.expectedImprovementUsd);
    const worthLearning =
      learningRun &&
      learningRun.expectedImprovementUsd >= Math.max(learningStopGain, minExplorationGain) * bestKnownCostUsd;
    if (worthLearning) {
      // safe by expansion only: the model alone would not have run it
      const bound =
        learningRun.probabilityMeetsSla < floor ? expanded.get(learningRun.candidate.id) : undefined;
      return {
        choice: learningRun,
        learning: true,
        exploring: false,
        ...(bound ? { expansion: bound } : {}),
      };
    }
    // No learning run worth it (under safe learning: no cheaper probe likely to meet the SLA): learning ends
    // and the optimizing rules keep the best known configuration.
    return {
      ...this.chooseByRules(assessment, allowed, 'optimizing', mayOverrunBadly, limits),
      learning: false,
    };
  }

  /**
   * The candidates safe by expansion with their perfect-scaling runtime bound (`safe-expansion.ts`): none
   * under a miss budget or with expansion off.
   */
  private expandedSafeSet(
    assessment: Assessment,
    input: RecommendInput,
    budgeted: boolean,
  ): Map<string, ExpansionBound> {
    const expansion = this.settings.safeExpansion;
    if (budgeted || !expansion) return new Map();
    const met = metConfigurations(input.candidates, input.observations, assessment.slaSeconds);
    return safeByExpansion(input.candidates, met, assessment.slaSeconds, expansion);
  }

  /**
   * The confident rules of each preference; no choice means "keep the current configuration". `exploring`:
   * the choice is an untried configuration picked for its expected improvement (economy's explore rule).
   */
  private chooseByRules(
    assessment: Assessment,
    allowed: readonly CandidateAssessment[],
    mode: Exclude<DecisionMode, 'exploring'>,
    mayOverrunBadly: (entry: CandidateAssessment) => boolean,
    { untriedCostLimitUsd, keepBestMet }: RuleLimits,
  ): { choice: CandidateAssessment | undefined; exploring: boolean } {
    const { preference, minSaving, minExplorationGain, confidence, explorationConfidence } = this.settings;
    const { current, currentCostUsd, bestKnownCostUsd } = assessment;
    // failed, missed the SLA on average, or missed it more often than the confidence allows
    const missed = !Number.isFinite(currentCostUsd);
    // After learning a keep is a claim like any other: it needs the confidence a change needs.
    const unconfident =
      mode === 'optimizing' && assessment.hasSla && current.probabilityMeetsSla < confidence;
    const mustMove = missed || unconfident || !allowed.includes(current);
    const required = mode === 'first' ? this.settings.firstConfidence : confidence;
    // an untried configuration that may overrun the SLA badly, or is expected to cost more than the limit,
    // is never chosen
    const safe = allowed.filter(
      (entry) =>
        entry.probabilityMeetsSla >= required &&
        !mayOverrunBadly(entry) &&
        (entry.tried || entry.expectedCostUsd <= untriedCostLimitUsd),
    );
    const switchIfWorthIt = (
      best: CandidateAssessment | undefined,
      gain: (entry: CandidateAssessment) => boolean,
    ) => {
      if (!best || best.candidate.id === current.candidate.id) return undefined;
      return mustMove || gain(best) ? best : undefined;
    };

    const cheapest = minimumBy(safe, (entry) => entry.expectedCostUsd);
    // A configuration that must move (outside the project's bounds, failed, or missed the SLA) moves even
    // when nothing satisfies the preference's own rule: to the cheapest confident candidate, else to the
    // one likeliest to meet the SLA. Keeping it would ignore the bounds the team set.
    const moveAnyway = () => (mustMove ? (cheapest ?? rescue(allowed, true)) : undefined);
    // The cheapest configuration that met the SLA in its own runs (its record judged like the current one's).
    const bestKnown = assessment.bestKnown;
    const metOwn = bestKnown && allowed.includes(bestKnown) ? bestKnown : undefined;
    if (missed) {
      // A configuration that missed moves, in any phase, to one that met the SLA in its own runs; only when
      // none did, to the cheapest confident candidate, else to the likeliest to meet the SLA.
      return { choice: metOwn ?? cheapest ?? rescue(allowed, true), exploring: false };
    }
    if (unconfident && preference !== 'balanced') {
      // Below the confidence a keep needs: the cheapest confident candidate, else the cheapest configuration
      // that met the SLA in its own runs (the current one: keep). Safe learning keeps the best it knows:
      // the cheaper of the two, never back to a dearer confident configuration.
      const cheaperMet =
        keepBestMet && metOwn && (!cheapest || metOwn.expectedCostUsd < cheapest.expectedCostUsd);
      const choice = cheaperMet ? metOwn : (cheapest ?? metOwn);
      return { choice: choice === current ? undefined : choice, exploring: false };
    }

    if (preference === 'performance') {
      const budget = Number.isFinite(currentCostUsd) ? currentCostUsd : bestKnownCostUsd;
      const fastest = minimumBy(
        allowed.filter((entry) => entry.expectedCostUsd <= budget),
        (entry) => entry.expectedRuntimeS,
      );
      const choice =
        switchIfWorthIt(
          fastest,
          (entry) => entry.expectedRuntimeS < current.expectedRuntimeS * (1 - minSaving),
        ) ?? moveAnyway();
      return { choice, exploring: false };
    }
    if (preference === 'balanced') {
      // No slower than the current configuration, or than the job's own first configuration when that is
      // slower: a faster cluster tried while learning must not stop the job going back to a cheaper one
      // at the speed its team chose.
      const speedLimitS = Math.max(current.expectedRuntimeS, assessment.baseline.expectedRuntimeS);
      const noSlower = safe.filter((entry) => entry.expectedRuntimeS <= speedLimitS);
      const cheapestNoSlower = minimumBy(noSlower, (entry) => entry.expectedCostUsd);
      const choice =
        switchIfWorthIt(
          cheapestNoSlower,
          (entry) => entry.expectedCostUsd <= currentCostUsd * (1 - minSaving),
        ) ?? (unconfident ? (metOwn === current ? undefined : (cheapest ?? metOwn)) : moveAnyway());
      return { choice, exploring: false };
    }

    // Safe learning keeps its best after learning, not only below the confidence a keep needs: a job that
    // learned on a dearer configuration goes back to a cheaper one that met the SLA in its own runs (and is
    // not predicted to miss it), unless a confident candidate is cheaper still, for the hysteresis saving.
    if (
      mode === 'optimizing' &&
      keepBestMet &&
      metOwn &&
      metOwn !== current &&
      metOwn.probabilityMeetsSla >= predictedToMeetConfidence &&
      (!cheapest || metOwn.expectedCostUsd < cheapest.expectedCostUsd) &&
      bestKnownCostUsd <= currentCostUsd * (1 - minSaving)
    )
      return { choice: metOwn, exploring: false };
    const exploit = switchIfWorthIt(
      cheapest,
      (entry) => entry.expectedCostUsd <= currentCostUsd * (1 - minSaving),
    );
    if (mode === 'first' && (exploit || mustMove))
      return { choice: exploit ?? rescue(allowed, mustMove), exploring: false };
    // Explore only what is not expected to cost more than now (the best known cost when the current
    // configuration failed or missed): a wide prediction gives a dearer candidate some expected improvement
    // too, and spending more on the chance of saving is what learning runs, and their budget, are for.
    const costLimitUsd = Math.min(
      Number.isFinite(currentCostUsd) ? currentCostUsd : bestKnownCostUsd,
      untriedCostLimitUsd,
    );
    const confident =
      mode === 'first' ? safe : allowed.filter((entry) => entry.probabilityMeetsSla >= explorationConfidence);
    const untried = confident.filter(
      (entry) => !entry.tried && entry.expectedCostUsd <= costLimitUsd && !mayOverrunBadly(entry),
    );
    const explore = maximumBy(untried, (entry) => entry.expectedImprovementUsd);
    if (explore && explore.expectedImprovementUsd >= minExplorationGain * bestKnownCostUsd)
      return { choice: explore, exploring: true };
    return { choice: exploit ?? rescue(allowed, mustMove), exploring: false };
  }
}

/** What the optimizing rules may choose beyond their own tests (safe learning narrows it). */
interface RuleLimits {
  /** No untried configuration expected to cost more than this is chosen. */
  untriedCostLimitUsd: number;
  /**
   * Below the confidence a keep needs, prefer the cheapest configuration that met the SLA in its own runs
   * to a dearer confident one.
   */
  keepBestMet: boolean;
}

/** The learning phase's limits and what of them the job's runs have used. */
export function learningBudgetOf(
  settings: Pick<OptimizerSettings, 'learningMissBudget' | 'learningRuns'>,
  observations: readonly Observation[],
  slaSeconds: number,
): LearningBudget {
  const missBudget = settings.learningMissBudget > 0 ? settings.learningMissBudget : null;
  // Runs after the first recommendation (index 0 is the cold start, 1 the first recommendation) that the
  // learning phase configured.
  const misses = observations
    .slice(2, settings.learningRuns + 1)
    .filter((observation) => !observation.completed || observation.runtimeS > slaSeconds).length;
  return {
    maxRuns: settings.learningRuns,
    missBudget,
    missesSpent: missBudget === null ? misses : Math.min(misses, missBudget),
  };
}

/**
 * What safe learning's cost bound is a multiple of: the mean cost of the cheapest configuration known to
 * meet the SLA, or the cold start's while none has.
 */
function safeProbeCostLimit(assessment: Assessment, observations: readonly Observation[]): number {
  if (assessment.bestKnown) return assessment.bestKnownCostUsd;
  const coldStart = observations[0];
  if (!coldStart) return Number.POSITIVE_INFINITY;
  const mean = meanCost(observations, coldStart.candidateId);
  return Number.isFinite(mean) ? mean : coldStart.costUsd;
}

/** When the current configuration misses the SLA or failed and nothing is confidently safe: the likeliest to meet it. */
function rescue(allowed: readonly CandidateAssessment[], mustMove: boolean): CandidateAssessment | undefined {
  if (!mustMove) return undefined;
  return maximumBy(allowed, (entry) => entry.probabilityMeetsSla - 1e-6 * entry.expectedCostUsd);
}

export interface Assessment {
  assessments: CandidateAssessment[];
  slaSeconds: number;
  /** Whether `slaSeconds` is the project's SLA (else the best known runtime plus `maxRuntimeIncrease`). */
  hasSla: boolean;

  current: CandidateAssessment;
  /**
   * The configuration of the first run observed (the job as its team sized it, or as it ran when it last
   * changed): `balanced` may always return to its speed.
   */
  baseline: CandidateAssessment;
  /**
   * Mean cost of the current configuration, or Infinity when it failed, missed the SLA on average, or
   * missed more often than the confidence allows (`missesTooOften`).
   */
  currentCostUsd: number;
  bestKnown: CandidateAssessment | undefined;
  bestKnownCostUsd: number;
  mixture: RuntimeMixture;
}

/**
 * Whether the service would swap this candidate, chosen now, for its on-demand twin (`MarketSwaps`). The
 * current configuration is never counted: keeping it is no new choice, and the service's own rule decides
 * whether it moves to its twin.
 */
export function swappedForTwin(
  entry: CandidateAssessment,
  assessment: Pick<Assessment, 'assessments' | 'current'>,
  swaps: MarketSwaps | undefined,
): boolean {
  if (!swaps || entry.candidate.id === assessment.current.candidate.id) return false;
  const twinId = swaps.twins[entry.candidate.id];
  if (twinId === undefined || !assessment.assessments.some((other) => other.candidate.id === twinId))
    return false;
  const p = entry.probabilityMeetsSla;
  return p >= swaps.feasibleConfidence && p < swaps.minConfidence;
}

function withinBounds(candidate: Candidate, bounds: ProjectBounds | undefined): boolean {
  if (!bounds) return true;
  if (bounds.minNodes !== undefined && candidate.nodes < bounds.minNodes) return false;
  if (bounds.maxNodes !== undefined && candidate.nodes > bounds.maxNodes) return false;
  if (bounds.allowedFamilies && !bounds.allowedFamilies.includes(instanceFamily(candidate))) {
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

/**
 * Cheapest tried configuration whose completed runs met the runtime limit on average and that does not
 * miss it more often than the confidence allows.
 */
function bestKnown(input: RecommendInput, maxRuntimeS: number, confidence: number): Candidate | undefined {
  let best: Candidate | undefined;
  let bestCost = Number.POSITIVE_INFINITY;
  for (const candidate of input.candidates) {
    const runs = input.observations.filter((observation) => observation.candidateId === candidate.id);
    if (runs.length === 0 || runs.some((observation) => !observation.completed)) continue;
    if (meanRuntime(runs, candidate.id) > maxRuntimeS) continue;
    if (missesTooOften(runs, candidate.id, maxRuntimeS, confidence)) continue;
    const cost = meanCost(runs, candidate.id);
    if (cost < bestCost) {
      bestCost = cost;
      best = candidate;
    }
  }
  return best;
}

/** How many of a configuration's latest runs its record is judged on. */
export const recentRunsJudged = 5;
/**
 * A record this unlikely for a configuration that meets the SLA with the claimed confidence is a
 * configuration that does not: e.g. 2 misses in its last 5 runs at a claimed 0.9 (P = 0.08).
 */
const recordSignificance = 0.1;

/**
 * Whether a configuration missed the runtime limit (or failed) in its latest `recentRunsJudged` runs more
 * often than a configuration meeting it with probability `confidence` would, at `recordSignificance`:
 * P(at least that many misses | a miss rate of 1 − confidence) < `recordSignificance`. One miss of one run
 * is left to the mean-runtime rule; two of five runs, or two of two, move the job whatever its phase.
 */
export function missesTooOften(
  observations: readonly Observation[],
  candidateId: string,
  limitS: number,
  confidence: number,
): boolean {
  const recent = observations.filter((o) => o.candidateId === candidateId).slice(-recentRunsJudged);
  const misses = recent.filter((o) => !o.completed || o.runtimeS > limitS).length;
  if (misses < 2) return false;
  return binomialTail(recent.length, misses, 1 - confidence) < recordSignificance;
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
function binomialTail(n: number, k: number, p: number): number {
  let total = 0;
  let term = (1 - p) ** n; // P(X = 0)
  for (let x = 0; x <= n; x++) {
    if (x >= k) total += term;
    term *= ((n - x) / (x + 1)) * (p / (1 - p));
  }
  return total;
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
      ? `keep ${c.nodes} × ${configurationName(c)}`
      : `${c.nodes} × ${configurationName(c)}`;
  const now = Number.isFinite(currentCost)
    ? `vs $${dollars(currentCost)} now on ${current.candidate.nodes} × ${configurationName(current.candidate)}`
    : `the current ${current.candidate.nodes} × ${configurationName(current.candidate)} failed or missed the SLA`;
  const limit = hasSla
    ? `P(runtime ≤ SLA ${minutes(slaSeconds)} min) = ${chosen.probabilityMeetsSla.toFixed(2)}`
    : Number.isFinite(slaSeconds)
      ? `no SLA set: P(runtime ≤ ${minutes(slaSeconds)} min, the best seen + 10%) = ${chosen.probabilityMeetsSla.toFixed(2)}`
      : noRuntimeBoundYet;
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
      : `a fleet prior of ${countOf(basis.fleetJobs, 'job')} (${basis.shippedJobs} shipped with Setpoint, ${own} of this organization)`;
  const closest = basis.closest
    .map((entry) => `${entry.label} (${Math.round(entry.weight * 100)}%)`)
    .join(', ');
  const calibrated =
    basis.calibrationCases > 0
      ? `probabilities calibrated on ${countOf(basis.calibrationCases, 'held-out prediction')}`
      : 'probabilities not calibrated (fleet too small)';
  return (
    `${countOf(basis.runs, 'run')} of this job${basis.summarizedRuns ? ` (${basis.summarizedRuns} of them summarized)` : ''} on ${countOf(basis.configurations, 'configuration')} and ${fleet}` +
    `${closest ? `, closest: ${closest}` : ''}; ${calibrated}`
  );
}
