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
 * the fleet's failure rate for configurations with less memory than one known to work.
 */
export function failureProbabilities(
  candidates: readonly Candidate[],
  observations: readonly Observation[],
  memoryRisk: readonly MemoryRiskBucket[],
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
  const peakNeed = Math.max(0, ...observations.map((observation) => observation.profile?.peakMemoryGib ?? 0));

  return candidates.map((candidate) => {
    const memory = totalMemoryGib(candidate);
    const memoryPerCore = candidate.memoryGibPerNode / candidate.vcpusPerNode;
    if (peakNeed > 0 && memory < peakNeed * peakMemoryHeadroom) return dominatedFailureProbability;
    let probability = 0;
    if (smallestGoodMemory !== undefined) {
      const ratio = Math.log2(memory / smallestGoodMemory);
      probability = memoryRisk.find((bucket) => ratio < bucket.maxLog2Ratio)?.failureRate ?? 0;
    } else {
      probability = memoryRisk.at(-1)?.failureRate ?? 0;
    }
    if (succeededIds.has(candidate.id))
      probability = Math.min(probability, memoryRisk.at(-1)?.failureRate ?? 0);
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
