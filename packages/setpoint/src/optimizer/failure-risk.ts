import { totalMemoryGib } from './config-features.js';
import type { MemoryRiskBucket } from './fleet-prior.js';
import type { Candidate, Observation } from './types.js';

/** Headroom over the observed peak memory that a configuration must keep to count as safe. */
export const peakMemoryHeadroom = 1.1;
const dominatedFailureProbability = 0.9;
const repeatedFailureProbability = 0.95;

/**
 * Probability that a run on each candidate fails (out of memory, or killed), from three sources in order
 * of strength: a measured peak memory need (never go below it), configurations that already failed (any
 * configuration with no more memory in total and per core is assumed to fail too: the OOM boundary), and
 * the fleet: how often the analog jobs failed on that very configuration, or else how often fleet jobs
 * failed with less memory than a configuration known to work. A configuration with at least the memory
 * (total and per core) of one that worked keeps only the fleet's base failure rate.
 */
export function failureProbabilities(
  candidates: readonly Candidate[],
  observations: readonly Observation[],
  memoryRisk: readonly MemoryRiskBucket[],
  analogFailureRate: (index: number) => number | undefined = () => undefined,
): number[] {
  const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
  const completed = observations.filter((observation) => observation.completed);
  const failed = observations
    .filter((observation) => !observation.completed)
    .map((observation) => byId.get(observation.candidateId))
    .filter((candidate): candidate is Candidate => candidate !== undefined);
  const succeededIds = new Set(completed.map((observation) => observation.candidateId));
  const goodMemories = completed
    .map((observation) => byId.get(observation.candidateId))
    .filter((candidate): candidate is Candidate => candidate !== undefined)
    .map(totalMemoryGib);
  const smallestGoodMemory = goodMemories.length > 0 ? Math.min(...goodMemories) : undefined;
  const goodConfigs = completed
    .map((observation) => byId.get(observation.candidateId))
    .filter((candidate): candidate is Candidate => candidate !== undefined);
  const baseRate = memoryRisk.at(-1)?.failureRate ?? 0;
  const peakNeed = Math.max(0, ...observations.map((observation) => observation.profile?.peakMemoryGib ?? 0));

  return candidates.map((candidate, index) => {
    const memory = totalMemoryGib(candidate);
    const memoryPerCore = candidate.memoryGibPerNode / candidate.vcpusPerNode;
    if (peakNeed > 0 && memory < peakNeed * peakMemoryHeadroom) return dominatedFailureProbability;
    const analogRate = analogFailureRate(index);
    let probability = analogRate ?? baseRate;
    if (smallestGoodMemory !== undefined && analogRate === undefined) {
      const ratio = Math.log2(memory / smallestGoodMemory);
      probability = memoryRisk.find((bucket) => ratio < bucket.maxLog2Ratio)?.failureRate ?? baseRate;
    }
    const coveredByGoodRun = goodConfigs.some(
      (good) => memory >= totalMemoryGib(good) && memoryPerCore >= good.memoryGibPerNode / good.vcpusPerNode,
    );
    if (coveredByGoodRun || succeededIds.has(candidate.id)) probability = Math.min(probability, baseRate);
    for (const bad of failed) {
      if (bad.id === candidate.id && !succeededIds.has(candidate.id)) {
        probability = Math.max(probability, repeatedFailureProbability);
      } else if (
        memory <= totalMemoryGib(bad) &&
        memoryPerCore <= bad.memoryGibPerNode / bad.vcpusPerNode &&
        !succeededIds.has(candidate.id)
      ) {
        probability = Math.max(probability, dominatedFailureProbability);
      }
    }
    return probability;
  });
}
