import { memoryPerCore, totalMemoryGib } from './config-features.js';
import { conditionalFailure, type FailurePrior } from './failure-prior.js';
import type { Candidate, Observation } from './types.js';

/** Headroom over the observed peak memory that a configuration must keep to count as safe. */
export const peakMemoryHeadroom = 1.1;
const dominatedFailureProbability = 0.9;
const repeatedFailureProbability = 0.95;

/**
 * Probability that a run on each candidate fails, from the strongest evidence down: a measured peak
 * memory need (never go below it), configurations of this job that failed (any configuration with no
 * more memory in total and per core is assumed to fail too: the OOM boundary), the analog jobs' failure
 * rate on that very configuration, and else the fleet's failure model against the configurations that
 * worked for this job (the most favourable one counts). With no run that worked yet, the fleet's base
 * rate.
 */
export function failureProbabilities(
  candidates: readonly Candidate[],
  observations: readonly Observation[],
  prior: FailurePrior,
  analogFailureRate: (index: number) => number | undefined = () => undefined,
): number[] {
  const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
  const configurationsOf = (completed: boolean) => {
    const found = new Map<string, Candidate>();
    for (const observation of observations) {
      if (observation.completed !== completed) continue;
      const candidate = byId.get(observation.candidateId);
      if (candidate) found.set(candidate.id, candidate);
    }
    return [...found.values()];
  };
  const worked = configurationsOf(true);
  const workedIds = new Set(worked.map((candidate) => candidate.id));
  // Only configurations that never worked mark the OOM boundary; a flaky one speaks for itself.
  const failed = configurationsOf(false).filter((candidate) => !workedIds.has(candidate.id));
  const tally = new Map<string, { runs: number; failures: number }>();
  for (const observation of observations) {
    const entry = tally.get(observation.candidateId) ?? { runs: 0, failures: 0 };
    entry.runs++;
    if (!observation.completed) entry.failures++;
    tally.set(observation.candidateId, entry);
  }
  const peakNeed = Math.max(0, ...observations.map((observation) => observation.profile?.peakMemoryGib ?? 0));

  return candidates.map((candidate, index) => {
    if (peakNeed > 0 && totalMemoryGib(candidate) < peakNeed * peakMemoryHeadroom) {
      return dominatedFailureProbability;
    }
    const own = tally.get(candidate.id);
    if (own && own.failures < own.runs) {
      // Tried and worked at least once: its own record, pulled toward the base rate by two pseudo-runs.
      return (own.failures + 2 * prior.baseRate) / (own.runs + 2);
    }
    if (own) return repeatedFailureProbability;
    const fleet =
      worked.length > 0
        ? Math.min(...worked.map((good) => conditionalFailure(prior, candidate, good)))
        : prior.baseRate;
    const analog = analogFailureRate(index);
    // The analogs are the fleet's jobs weighted by likeness: they may raise the risk where this job
    // resembles one that failed there, never lower it below what the fleet shows for such memory.
    let probability = analog === undefined ? fleet : Math.max(analog, fleet);
    for (const bad of failed) {
      if (
        totalMemoryGib(candidate) <= totalMemoryGib(bad) &&
        memoryPerCore(candidate) <= memoryPerCore(bad)
      ) {
        probability = Math.max(probability, dominatedFailureProbability);
      }
    }
    return probability;
  });
}
