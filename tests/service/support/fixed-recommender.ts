import type {
  RecommendationInput,
  RecommendationOutput,
  Recommender,
} from 'setpoint/service/recommender/recommender';

/** A recommender with a known answer, for tests about the service around it, not the optimizer. */
export const fixedRecommender: Recommender = {
  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    return {
      phase: input.project.phase,
      configuration: { node_type_id: 'm6i.xlarge', num_workers: 3 },
      prediction: { runtimeMinutes: { low: 9, mid: 10, high: 12 }, costUsd: { low: 1.5, mid: 2, high: 2.5 } },
      explanation: 'fixed answer',
    };
  },
};
