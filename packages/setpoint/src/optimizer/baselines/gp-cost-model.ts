import { instanceFamily } from '../config-features.js';
import { fitGaussianProcessByEvidence } from '../gaussian-process.js';
import { type Candidate, candidateRateUsdPerHour, type Observation } from '../types.js';

/**
 * What the cost GP says about one configuration: ln(cost of a run) ~ N(meanLogCost, sd²), and the run's
 * runtime is its cost over the configuration's rate, so ln(runtime) ~ N(meanLogCost − ln rate, sd²).
 */
export interface CostPrediction {
  meanLogCost: number;
  sd: number;
  ratePerSecond: number;
}

/** The GP's hyperparameter grid, chosen by marginal likelihood at every fit (gp-ei's). */
const lengthscales = [0.15, 0.3, 0.5, 0.8, 1.2];
const noiseVariances = [1e-3, 1e-2, 1e-1];

/**
 * The cost model of the GP baselines (gp-ei here, the constrained ones in the bench): a GP over nodes, vCPUs
 * per node, memory per core (log2, scaled to [0, 1]) and the instance family models ln(cost) of the runs
 * observed so far; a failed run is scored as twice the worst completed cost.
 */
export function gpCostModel(candidates: readonly Candidate[]) {
  const points = normalizedFeatures(candidates);
  const index = new Map(candidates.map((candidate, i) => [candidate.id, i]));
  const pointOf = (id: string) => {
    const i = index.get(id);
    if (i === undefined) throw new RangeError(`${id} is not in the catalog`);
    return points[i]!;
  };
  return {
    /** Fits the GP to the observations; the result predicts any configuration of the catalog. */
    fit(observations: readonly Observation[]): (candidate: Candidate) => CostPrediction {
      const gp = fitGaussianProcessByEvidence(
        observations.map((observation) => pointOf(observation.candidateId)),
        costTargets(observations),
        lengthscales,
        noiseVariances,
      );
      return (candidate) => {
        const { mean, sd } = gp.predict(pointOf(candidate.id));
        return { meanLogCost: mean, sd, ratePerSecond: candidateRateUsdPerHour(candidate) / 3600 };
      };
    },
  };
}

/** The ln-cost targets the GP is fitted to, in the order of the observations. */
export function costTargets(observations: readonly Observation[]): number[] {
  const completedLogs = observations.filter((o) => o.completed).map((o) => Math.log(o.costUsd));
  const worst = completedLogs.length > 0 ? Math.max(...completedLogs) : 0;
  return observations.map((observation) =>
    observation.completed ? Math.log(observation.costUsd) : worst + Math.LN2,
  );
}

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
