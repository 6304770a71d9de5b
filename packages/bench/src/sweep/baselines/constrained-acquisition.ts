import type { CostPrediction } from 'setpoint/optimizer/baselines/gp-cost-model';
import { normalCdf, normalQuantile } from 'setpoint/optimizer/normal-distribution';

/** Below this the prediction is treated as certain (a step instead of a normal CDF). */
const certainSd = 1e-9;

function meanLogRuntime(prediction: CostPrediction): number {
  return prediction.meanLogCost - Math.log(prediction.ratePerSecond);
}

/** P(runtime ≤ SLA): the probability of feasibility in constrained Bayesian optimization. */
export function probabilityFeasible(prediction: CostPrediction, slaSeconds: number): number {
  const margin = Math.log(slaSeconds) - meanLogRuntime(prediction);
  if (prediction.sd < certainSd) return margin >= 0 ? 1 : 0;
  return normalCdf(margin / prediction.sd);
}

/**
 * Expected improvement of the run's cost C over the best feasible cost: E[max(0, best − C)] for a
 * log-normal C, = best·Φ(z) − E[C]·Φ(z − σ) with z = (ln best − μ) / σ.
 */
export function expectedCostImprovement(prediction: CostPrediction, bestCost: number): number {
  const { meanLogCost: mu, sd } = prediction;
  if (sd < certainSd) return Math.max(0, bestCost - Math.exp(mu));
  const z = (Math.log(bestCost) - mu) / sd;
  return Math.max(0, bestCost * normalCdf(z) - Math.exp(mu + (sd * sd) / 2) * normalCdf(z - sd));
}

/**
 * Constrained expected improvement in its standard form (Gardner et al. 2014, Gelbart et al. 2014): the
 * objective's expected improvement over the best feasible observation times the probability that the
 * constraint holds; while no observation is feasible, the probability alone (find a feasible point
 * first).
 */
export function constrainedExpectedImprovement(
  prediction: CostPrediction,
  bestFeasibleCost: number | undefined,
  slaSeconds: number,
): number {
  const feasible = probabilityFeasible(prediction, slaSeconds);
  return bestFeasibleCost === undefined
    ? feasible
    : expectedCostImprovement(prediction, bestFeasibleCost) * feasible;
}

/** One configuration the search may run next, with what the GP predicts for it. */
export interface AcquisitionCandidate {
  id: string;
  prediction: CostPrediction;
  /** Whether it was run before (constrained EI ranks untried configurations only). */
  tried: boolean;
  /** The cheapest cost it was observed to meet the SLA at, when it did. */
  metSlaAtCost?: number;
}

export interface ConstrainedChoice {
  id: string;
  /** Why: the acquisition's pick, or the fallback when no untried configuration clears the floor. */
  by: 'acquisition' | 'incumbent' | 'likeliest';
  probabilityFeasible: number;
}

/**
 * Chooses the next run by constrained EI among the untried configurations whose P(feasible) reaches the
 * floor (0 admits every one). When none does, or none is expected to improve on the best feasible cost,
 * the search does not gamble: it runs again the cheapest configuration that met the SLA (the incumbent),
 * or, if none has, the configuration likeliest to meet it.
 */
export function chooseConstrained(
  candidates: readonly AcquisitionCandidate[],
  slaSeconds: number,
  feasibilityFloor: number,
): ConstrainedChoice {
  const met = candidates.filter((candidate) => candidate.metSlaAtCost !== undefined);
  const bestFeasibleCost =
    met.length > 0 ? Math.min(...met.map((candidate) => candidate.metSlaAtCost as number)) : undefined;
  let best: ConstrainedChoice | undefined;
  let bestValue = 0;
  for (const candidate of candidates) {
    if (candidate.tried) continue;
    const feasible = probabilityFeasible(candidate.prediction, slaSeconds);
    if (feasible < feasibilityFloor) continue;
    const value = constrainedExpectedImprovement(candidate.prediction, bestFeasibleCost, slaSeconds);
    if (value > bestValue) {
      bestValue = value;
      best = { id: candidate.id, by: 'acquisition', probabilityFeasible: feasible };
    }
  }
  if (best) return best;
  const incumbent = met.find((candidate) => candidate.metSlaAtCost === bestFeasibleCost);
  if (incumbent) {
    return {
      id: incumbent.id,
      by: 'incumbent',
      probabilityFeasible: probabilityFeasible(incumbent.prediction, slaSeconds),
    };
  }
  let likeliest: ConstrainedChoice | undefined;
  for (const candidate of candidates) {
    const feasible = probabilityFeasible(candidate.prediction, slaSeconds);
    if (!likeliest || feasible > likeliest.probabilityFeasible) {
      likeliest = { id: candidate.id, by: 'likeliest', probabilityFeasible: feasible };
    }
  }
  if (!likeliest) throw new RangeError('chooseConstrained needs at least one candidate');
  return likeliest;
}

const z90 = normalQuantile(0.9);

/** The 80% interval of the predicted runtime (10th and 90th percentile), seconds. */
export function runtimeInterval(prediction: CostPrediction): { lowS: number; highS: number } {
  const mean = meanLogRuntime(prediction);
  return { lowS: Math.exp(mean - z90 * prediction.sd), highS: Math.exp(mean + z90 * prediction.sd) };
}
