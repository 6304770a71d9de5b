import type { ProjectPhase } from '@setpoint/api-contract';
import type { Selectable } from 'kysely';
import type { RecommendationsTable } from '../../store/database-schema.js';
import { parseJsonColumn } from '../../store/json-column.js';
import type { ClusterConfiguration, Prediction, RecommendationDecision } from './recommender.js';

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

export function toRecommendation(row: Selectable<RecommendationsTable>): RecommendationRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    state: row.state as RecommendationState,
    phase: row.phase as ProjectPhase | null,
    configuration: parseJsonColumn<ClusterConfiguration>(row.configuration),
    prediction: parseJsonColumn<Prediction>(row.prediction),
    explanation: row.explanation,
    decision: parseJsonColumn<RecommendationDecision>(row.decision),
    basedOnRunId: row.based_on_run_id,
    basedOnRunPrunedAt: row.based_on_run_pruned_at,
    error: row.error,
    requestedBy: row.requested_by,
    applyRequestedAt: row.apply_requested_at,
    applyRequestedBy: row.apply_requested_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
