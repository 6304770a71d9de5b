import type { ProjectPhase } from '@setpoint/api-contract';
import type { ClusterConfiguration, Prediction, RecommendationDecision } from '../recommender/recommender.js';

export type RecommendationState = 'PENDING' | 'SUCCESS' | 'FAILURE';

/** A stored recommendation of a project (the optimizer's own `Recommendation` is its raw decision). */
export interface RecommendationRecord {
  id: string;
  projectId: string;
  state: RecommendationState;
  phase: ProjectPhase | null;
  configuration: ClusterConfiguration | null;
  prediction: Prediction | null;
  explanation: string | null;
  decision: RecommendationDecision | null;
  basedOnRunId: string | null;
  /** When run retention deleted the run this was based on; `basedOnRunId` is then null. */
  basedOnRunPrunedAt: number | null;
  error: string | null;
  requestedBy: string;
  applyRequestedAt: number | null;
  applyRequestedBy: string | null;
  createdAt: number;
  updatedAt: number;
}
