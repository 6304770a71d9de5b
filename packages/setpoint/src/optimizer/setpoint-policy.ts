import type { FleetPrior } from './fleet-prior.js';
import { JobOptimizer, type OptimizerSettings } from './recommend.js';
import type { SearchPolicyFactory } from './search-policy.js';
import type { Candidate } from './types.js';

/** Setpoint's optimizer as a search policy: every run follows its recommendation for the SLA. */
export function setpointPolicy(
  prior: FleetPrior,
  settings: Partial<OptimizerSettings> = {},
): SearchPolicyFactory {
  // Episodes of one workload share its catalog: the model's fixed parts (analog surfaces) are built once.
  const optimizers = new WeakMap<readonly Candidate[], JobOptimizer>();
  return (context) => {
    let optimizer = optimizers.get(context.candidates);
    if (!optimizer) {
      optimizer = new JobOptimizer(prior, context.candidates, settings);
      optimizers.set(context.candidates, optimizer);
    }
    return {
      next(observations) {
        const current = observations.at(-1)?.candidateId ?? context.coldStartId;
        const recommendation = optimizer.recommend({
          candidates: context.candidates,
          observations,
          currentCandidateId: current,
          slaSeconds: context.slaSeconds,
        });
        return {
          candidateId: recommendation.candidateId,
          learning: recommendation.phase === 'LEARNING',
          claim: {
            probabilityMeetsSla: recommendation.probabilityMeetsSla,
            runtimeLowS: recommendation.predictedRuntimeS.low,
            runtimeHighS: recommendation.predictedRuntimeS.high,
          },
        };
      },
    };
  };
}
