import { constrainedExpectedImprovement } from '../normal-distribution.js';
import type { SearchPolicyFactory } from '../search-policy.js';
import { costTargets, gpCostModel } from './gp-cost-model.js';

/** Random runs before the GP takes over, counting the cold start (CherryPick and Ruya use three). */
export const gpInitialRuns = 3;

/**
 * CherryPick-style Bayesian optimization: a GP over configuration features (nodes, vCPUs per node, memory
 * per core, instance family) models ln(cost); the next run maximizes expected improvement on cost with the
 * runtime limit inside the expectation (runtime = cost / hourly rate). Failed runs are scored as twice the
 * worst observed cost so the search steers away from them.
 */
export const gpEiPolicy: SearchPolicyFactory = (context) => {
  const model = gpCostModel(context.candidates);
  return {
    next(observations) {
      const tried = new Set(observations.map((observation) => observation.candidateId));
      const untried = context.candidates.filter((candidate) => !tried.has(candidate.id));
      if (untried.length === 0) return { candidateId: context.coldStartId };
      if (observations.length < gpInitialRuns) {
        return { candidateId: untried[context.random.int(untried.length)]!.id };
      }
      const targets = costTargets(observations);
      const feasibleCosts = observations
        .filter((observation) => observation.completed && observation.runtimeS <= context.slaSeconds)
        .map((observation) => observation.costUsd);
      const bestCost =
        feasibleCosts.length > 0 ? Math.min(...feasibleCosts) : Math.exp(Math.min(...targets)) * 2;
      const predict = model.fit(observations);
      let best = untried[0]!;
      let bestValue = Number.NEGATIVE_INFINITY;
      for (const candidate of untried) {
        const { meanLogCost, sd, ratePerSecond } = predict(candidate);
        const value = constrainedExpectedImprovement(
          meanLogCost - Math.log(ratePerSecond),
          sd,
          ratePerSecond,
          bestCost,
          context.slaSeconds,
        );
        if (value > bestValue) {
          bestValue = value;
          best = candidate;
        }
      }
      return { candidateId: best.id };
    },
  };
};
