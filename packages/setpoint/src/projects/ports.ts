import type { RunProfile } from '../eventlog/run-profile.js';
import type { ProjectPhase, ProjectSettings } from './project-settings.js';
import type { ClusterReport } from './schema.js';

/** The cluster a run used, from its cluster report or else the event log's platform hints. */
export interface ClusterFacts {
  source: 'cluster_report' | 'eventlog';
  cloud: string | null;
  region: string | null;
  nodeTypeId: string | null;
  driverNodeTypeId: string | null;
  workers: number | null;
  autoscale: { minWorkers: number; maxWorkers: number } | null;
  photon: boolean | null;
  /** e.g. SPOT_WITH_FALLBACK, ON_DEMAND. */
  availability: string | null;
  sparkVersion: string | null;
}

export interface WorkspaceFacts {
  id: string;
  platform: string;
  cloud: string;
  region: string | null;
  planType: string | null;
  computeType: string | null;
}

export interface CostLine {
  item: string;
  usd: number;
}

export interface RunCost {
  currency: 'USD';
  totalUsd: number;
  lines: CostLine[];
}

/** Event log bundle (a directory of one or more files) → RunProfile. */
export interface RunProfiler {
  profile(bundleDirectory: string): Promise<RunProfile>;
}

export interface CostInput {
  profile: RunProfile;
  cluster: ClusterFacts;
  clusterReport: ClusterReport | null;
  workspace: WorkspaceFacts | null;
}

export interface RunCoster {
  cost(input: CostInput): Promise<RunCost>;
}

/** One past run as the recommender sees it: everything known about it. */
export interface RecommenderRun {
  id: string;
  externalRunId: string;
  status: string | null;
  startedAt: number | null;
  endedAt: number | null;
  cluster: ClusterFacts;
  /** The Databricks `new_cluster` the run used, when a cluster report said so. */
  clusterConfig: Record<string, unknown> | null;
  profile: RunProfile;
  cost: RunCost;
  inputBytes: number | null;
  /** The Setpoint recommendation the run was configured from, if any. */
  recommendationId: string | null;
}

export interface PastRecommendation {
  id: string;
  state: string;
  basedOnRunId: string | null;
  configuration: NewClusterFragment | null;
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

export interface Range {
  low: number;
  mid: number;
  high: number;
}

export interface Prediction {
  runtimeMinutes: Range;
  costUsd: Range;
}

/** A Databricks `new_cluster` fragment: what apply would write into the job's cluster spec. */
export type NewClusterFragment = Record<string, unknown> & {
  node_type_id?: string;
  driver_node_type_id?: string;
  num_workers?: number;
  autoscale?: { min_workers: number; max_workers: number };
  runtime_engine?: 'STANDARD' | 'PHOTON';
};

export interface RecommendationOutput {
  phase: ProjectPhase;
  configuration: NewClusterFragment;
  prediction: Prediction;
  explanation: string;
}

export interface Recommender {
  recommend(input: RecommendationInput): Promise<RecommendationOutput>;
}

export type DomainEvent = {
  type: 'recommendation.apply_requested';
  projectId: string;
  recommendationId: string;
  actor: string;
  at: number;
};

export interface DomainEventPublisher {
  publish(event: DomainEvent): void;
}
