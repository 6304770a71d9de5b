export type RecommendationEvent = {
  type: 'recommendation.apply_requested';
  projectId: string;
  recommendationId: string;
  actor: string;
  at: number;
};

export interface RecommendationEventPublisher {
  publish(event: RecommendationEvent): void;
}
