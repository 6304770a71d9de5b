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
}

export interface OptimizerPassResult {
  /** Untried configurations the model predicts faster than the critical path allows. */
  implausible: string[];
  recommendation: Recommendation;
  assessment: Assessment;
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
  if (pool.length === input.pool.length) {
    return {
      implausible: [...implausible],
      recommendation: screener.recommendFrom(screening, request(input.pool)),
      assessment: screening,
    };
  }
  const optimizer = new JobOptimizer(prior, pool, settings);
  const assessment = optimizer.assess(request(pool));
  return {
    implausible: [...implausible],
    recommendation: optimizer.recommendFrom(assessment, request(pool)),
    assessment,
  };
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
