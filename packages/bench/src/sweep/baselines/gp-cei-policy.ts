import { gpCostModel } from 'setpoint/optimizer/baselines/gp-cost-model';
import { gpInitialRuns } from 'setpoint/optimizer/baselines/gp-ei-policy';
import type { SearchPolicyFactory } from 'setpoint/optimizer/search-policy';
import { chooseConstrained, runtimeInterval } from './constrained-acquisition.js';

/**
 * The floor of `gp-cei-floor`: a run only where the GP gives P(runtime ≤ SLA) ≥ 0.9. It is the
 * confidence Setpoint holds its own learning runs to, and the per-run form of issue 33's miss budget
 * (≤ 10% of the runs after the first recommendation): a calibrated model with this floor misses at most
 * one run in ten. Whether the GP is calibrated is what the sweep measures (its claims are reported).
 */
export const gpCeiFeasibilityFloor = 0.9;

export interface GpCeiOptions {
  /** Untried configurations below this P(runtime ≤ SLA) are never run (0: the plain constrained EI). */
  feasibilityFloor: number;
  /**
   * Runs before the GP chooses, counting the cold start; the ones after the cold start are random
   * untried configurations, as gp-ei's (1: the GP chooses from the first recommendation on).
   */
  initialRuns: number;
}

/** gp-cei: gp-ei's GP and initial design, acquisition EI × P(feasible), no floor. */
export const plainGpCei: GpCeiOptions = { feasibilityFloor: 0, initialRuns: gpInitialRuns };

/**
 * gp-cei-floor: the same GP held to the floor from the first recommendation on. A random initial run
 * cannot be held to a floor, so there is none: the GP starts from the cold start alone.
 */
export const flooredGpCei: GpCeiOptions = { feasibilityFloor: gpCeiFeasibilityFloor, initialRuns: 1 };

/**
 * Constrained Bayesian optimization over the catalog: gp-ei's cost GP, with the SLA as a constraint
 * whose probability comes from the same GP (runtime = cost ÷ rate). Each run it claims P(runtime ≤ SLA)
 * and the 80% runtime interval of what it chose, so the sweep's calibration report shows how far the
 * GP's probabilities can be trusted.
 */
export function gpCeiPolicy(options: GpCeiOptions): SearchPolicyFactory {
  return (context) => {
    const model = gpCostModel(context.candidates);
    return {
      next(observations) {
        const tried = new Set(observations.map((observation) => observation.candidateId));
        const untried = context.candidates.filter((candidate) => !tried.has(candidate.id));
        if (observations.length < options.initialRuns && untried.length > 0) {
          return { candidateId: untried[context.random.int(untried.length)]!.id };
        }
        const predict = model.fit(observations);
        const metSlaAtCost = new Map<string, number>();
        for (const observation of observations) {
          if (!observation.completed || observation.runtimeS > context.slaSeconds) continue;
          const known = metSlaAtCost.get(observation.candidateId);
          if (known === undefined || observation.costUsd < known) {
            metSlaAtCost.set(observation.candidateId, observation.costUsd);
          }
        }
        const predictions = new Map(
          context.candidates.map((candidate) => [candidate.id, predict(candidate)]),
        );
        const choice = chooseConstrained(
          context.candidates.map((candidate) => {
            const cost = metSlaAtCost.get(candidate.id);
            return {
              id: candidate.id,
              prediction: predictions.get(candidate.id)!,
              tried: tried.has(candidate.id),
              ...(cost === undefined ? {} : { metSlaAtCost: cost }),
            };
          }),
          context.slaSeconds,
          options.feasibilityFloor,
        );
        const prediction = predictions.get(choice.id)!;
        const interval = runtimeInterval(prediction);
        return {
          candidateId: choice.id,
          claim: {
            probabilityMeetsSla: choice.probabilityFeasible,
            runtimeLowS: interval.lowS,
            runtimeHighS: interval.highS,
          },
        };
      },
    };
  };
}
