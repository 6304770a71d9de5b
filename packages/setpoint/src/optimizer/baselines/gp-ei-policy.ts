import { instanceFamily } from '../config-features.js';
import { fitGaussianProcessByEvidence } from '../gaussian-process.js';
import { constrainedExpectedImprovement } from '../normal-distribution.js';
import type { SearchPolicyFactory } from '../search-policy.js';
import { type Candidate, candidateRateUsdPerHour } from '../types.js';

/** Random runs before the GP takes over, counting the cold start (CherryPick and Ruya use three). */
export const gpInitialRuns = 3;

/**
 * CherryPick-style Bayesian optimization: a GP over configuration features (nodes, vCPUs per node, memory
 * per core, instance family) models ln(cost); the next run maximizes expected improvement on cost with the
 * runtime limit inside the expectation (runtime = cost / hourly rate). Failed runs are scored as twice the
 * worst observed cost so the search steers away from them.
 */
export const gpEiPolicy: SearchPolicyFactory = (context) => {
  const points = normalizedFeatures(context.candidates);
  const index = new Map(context.candidates.map((candidate, i) => [candidate.id, i]));
  return {
    next(observations) {
      const tried = new Set(observations.map((observation) => observation.candidateId));
      const untried = context.candidates.filter((candidate) => !tried.has(candidate.id));
      if (untried.length === 0) return { candidateId: context.coldStartId };
      if (observations.length < gpInitialRuns) {
        return { candidateId: untried[context.random.int(untried.length)]!.id };
      }
      const completedLogs = observations.filter((o) => o.completed).map((o) => Math.log(o.costUsd));
      const worst = completedLogs.length > 0 ? Math.max(...completedLogs) : 0;
      const trainPoints = observations.map((observation) => points[index.get(observation.candidateId)!]!);
      const targets = observations.map((observation) =>
        observation.completed ? Math.log(observation.costUsd) : worst + Math.LN2,
      );
      const feasibleCosts = observations
        .filter((observation) => observation.completed && observation.runtimeS <= context.slaSeconds)
        .map((observation) => observation.costUsd);
      const bestCost =
        feasibleCosts.length > 0 ? Math.min(...feasibleCosts) : Math.exp(Math.min(...targets)) * 2;
      const gp = fitGaussianProcessByEvidence(
        trainPoints,
        targets,
        [0.15, 0.3, 0.5, 0.8, 1.2],
        [1e-3, 1e-2, 1e-1],
      );
      let best = untried[0]!;
      let bestValue = Number.NEGATIVE_INFINITY;
      for (const candidate of untried) {
        const { mean, sd } = gp.predict(points[index.get(candidate.id)!]!);
        const rate = candidateRateUsdPerHour(candidate) / 3600;
        const value = constrainedExpectedImprovement(
          mean - Math.log(rate),
          sd,
          rate,
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

function normalizedFeatures(candidates: readonly Candidate[]): number[][] {
  const families = [...new Set(candidates.map((candidate) => instanceFamily(candidate)))].sort();
  const raw = candidates.map((candidate) => [
    Math.log2(candidate.nodes),
    Math.log2(candidate.vcpusPerNode),
    Math.log2(candidate.memoryGibPerNode / candidate.vcpusPerNode),
  ]);
  const columns = raw[0]?.length ?? 0;
  const low = Array.from({ length: columns }, (_, c) => Math.min(...raw.map((row) => row[c] as number)));
  const high = Array.from({ length: columns }, (_, c) => Math.max(...raw.map((row) => row[c] as number)));
  return raw.map((row, i) => [
    ...row.map((value, c) => (high[c]! > low[c]! ? (value - low[c]!) / (high[c]! - low[c]!) : 0)),
    ...families.map((family) =>
      instanceFamily(candidates[i]!) === family ? 1 / Math.sqrt(families.length) : 0,
    ),
  ]);
}
