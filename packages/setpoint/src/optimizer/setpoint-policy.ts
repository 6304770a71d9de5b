import type { FleetPrior } from './fleet-prior.js';
import { JobOptimizer, type OptimizerSettings } from './recommend.js';
import type { SearchPolicyFactory } from './search-policy.js';

/** Setpoint's optimizer as a search policy: every run follows its recommendation for the SLA. */
export function setpointPolicy(
  prior: FleetPrior,
  settings: Partial<OptimizerSettings> = {},
): SearchPolicyFactory {
  return (context) => {
    const optimizer = new JobOptimizer(prior, context.candidates, settings);
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
