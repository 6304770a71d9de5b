import type { FleetPrior } from '../../optimizer/fleet-prior.js';
import {
  type Assessment,
  JobOptimizer,
  type OptimizerSettings,
  type Recommendation,
  type RecommendInput,
} from '../../optimizer/recommend.js';
import type { RuntimeAnalog } from '../../optimizer/runtime-analog.js';
import { RuntimeMixture } from '../../optimizer/runtime-mixture.js';
import type { Candidate } from '../../optimizer/types.js';
import { engineTrialSought, slaFeasible } from './decision.js';
import { trialBaselineQuantiles } from './engine-trial.js';

/**
 * The optimizer's share of a recommendation, as plain data that can cross to a worker thread: the prior,
 * the candidates left by the named filters, and the request (observations, current, SLA, bounds).
 */
export interface OptimizerPassInput {
  /** The fleet's prior, shared by every recommendation until it is relearned (a worker keeps it). */
  prior: FleetPrior;
  /** Analogs of this recommendation alone (the based-on run's what-if replay), after the prior's own. */
  extraAnalogs: RuntimeAnalog[];
  pool: Candidate[];
  settings: Partial<OptimizerSettings>;
  request: Omit<RecommendInput, 'candidates'>;
  /** The shortest runtime the based-on run's critical path allows. */
  floorS: number;
  /** Configurations already run: the model may not screen them out. */
  tried: string[];
  /**
   * What the decision needs to know which engine trial it will look for (`engineTrialSought`): the
   * baselines of the allowed trials, the candidates the project allows (whether the SLA is feasible) and
   * whether the speed-up prior was read from the job's run. Absent when the space kept no trials aside.
   */
  engineTrials?: { baselineIds: string[]; allowedIds: string[]; speedupOfJob: boolean };
}

export interface OptimizerPassResult {
  /** Untried configurations the model predicts faster than the critical path allows. */
  implausible: string[];
  recommendation: Recommendation;
  assessment: Assessment;
  /** The engine trials' baseline quantiles when the decision will look for a trial, else none. */
  trialQuantiles: Record<string, number[]>;
}

/**
 * The model fit and assessment (the CPU-heavy, pure part of recommending): the screening that finds
 * implausible predictions, then the optimizer's recommendation and assessment on what remains. The
 * service runs it on a worker thread (`runOptimizerPassOffThread`); benchmarks call it in-process.
 */
export function runOptimizerPass(input: OptimizerPassInput): OptimizerPassResult {
  const { settings, floorS } = input;
  const prior = withAnalogs(input.prior, input.extraAnalogs);
  const tried = new Set(input.tried);
  const request = (pool: readonly Candidate[]): RecommendInput => ({ ...input.request, candidates: pool });
  const screener = new JobOptimizer(prior, input.pool, settings);
  const screening = screener.assess(request(input.pool));
  const implausible = new Set<string>();
  for (const entry of screening.assessments) {
    if (!tried.has(entry.candidate.id) && screening.mixture.quantile(entry.index, 0.5) < floorS)
      implausible.add(entry.candidate.id);
  }
  // the current configuration is kept whatever the model says (as the critical-path filter does)
  const pool = input.pool.filter(
    (candidate) => !implausible.has(candidate.id) || candidate.id === input.request.currentCandidateId,
  );
  // Nothing screened out: the screening is the assessment (the model's predictions, most of a pass's time).
  const kept = pool.length === input.pool.length;
  const optimizer = kept ? screener : new JobOptimizer(prior, pool, settings);
  const assessment = kept ? screening : optimizer.assess(request(pool));
  const recommendation = optimizer.recommendFrom(assessment, request(pool));
  return {
    implausible: [...implausible],
    recommendation,
    assessment,
    trialQuantiles: trialQuantilesOf(input, assessment, recommendation),
  };
}

/**
 * The engine trials' baseline quantiles, when the decision will look for a trial: the heaviest part of a
 * decision, computed here on the pass's thread so that the service's event loop does not.
 */
function trialQuantilesOf(
  input: OptimizerPassInput,
  assessment: Assessment,
  recommendation: Recommendation,
): Record<string, number[]> {
  const trials = input.engineTrials;
  if (!trials) return {};
  const allowed = new Set(trials.allowedIds);
  const feasible =
    input.request.slaSeconds === undefined ||
    slaFeasible(assessment.assessments.filter((entry) => allowed.has(entry.candidate.id)));
  const sought = engineTrialSought({
    feasible,
    phase: recommendation.phase,
    speedupOfJob: trials.speedupOfJob,
  });
  return sought === null ? {} : trialBaselineQuantiles(assessment, trials.baselineIds);
}

/** The prior with a recommendation's own analogs after the fleet's. */
export function withAnalogs(prior: FleetPrior, extra: readonly RuntimeAnalog[]): FleetPrior {
  return extra.length === 0 ? prior : { ...prior, analogs: [...prior.analogs, ...extra] };
}

/** A pass result posted from a worker thread, with its mixture's methods back. */
export function reviveOptimizerPassResult(clone: OptimizerPassResult): OptimizerPassResult {
  return {
    ...clone,
    assessment: { ...clone.assessment, mixture: RuntimeMixture.revive(clone.assessment.mixture) },
  };
}
