import type { ProjectPhase, ProjectSettings } from '@setpoint/api-contract';
import type { RunProfile } from '../../eventlog/run-profile.js';
import type { Range } from '../../optimizer/types.js';
import type { ClusterFacts, RunCost } from '../runs/run-records.js';
import type { WorkspaceFacts } from '../workspaces/workspace-service.js';
import type { FilterOutcome } from './candidate-filters.js';

/** One past run as the recommender sees it: everything known about it. */
export interface RecommenderRun {
  id: string;
  externalRunId: string;
  status: string | null;
  startedAt: number | null;
  endedAt: number | null;
  cluster: ClusterFacts;
  /** The platform's configuration of the cluster the run used, when a cluster report said so. */
  clusterConfig: Record<string, unknown> | null;
  profile: RunProfile;
  cost: RunCost;
  inputBytes: number | null;
  /** The Setpoint recommendation the run was configured from, if any. */
  recommendationId: string | null;
}

/**
 * What a recommendation tells the platform to write, in the platform's own terms (a Databricks
 * `new_cluster` fragment; EMR instance groups). The core stores and shows it without reading it.
 */
export type ClusterConfiguration = Record<string, unknown>;

export interface Prediction {
  runtimeMinutes: Range;
  costUsd: Range;
}

export interface PastRecommendation {
  id: string;
  state: string;
  basedOnRunId: string | null;
  configuration: ClusterConfiguration | null;
  prediction: Prediction | null;
  applyRequestedAt: number | null;
}

export interface RecommendationInput {
  project: {
    id: string;
    name: string;
    phase: ProjectPhase;
    settings: ProjectSettings;
    workspace: WorkspaceFacts | null;
  };
  basedOnRunId: string;
  /** Every run of the project with a profile and a cost, oldest first. */
  runs: RecommenderRun[];
  recommendations: PastRecommendation[];
}

export interface RecommendationOutput {
  /** The recommender's judgement of where the project stands; it becomes the project's phase. */
  phase: ProjectPhase;
  configuration: ClusterConfiguration;
  prediction: Prediction;
  explanation: string;
  /** What the candidate filters left out, and why (logged with the recommendation). */
  filtered?: FilterOutcome[];
}

export interface Recommender {
  recommend(input: RecommendationInput): Promise<RecommendationOutput>;
}
