import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { ClusterFacts, RunCost } from '../runs/run-records.js';

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
  /** What the model reads of the run's profile (`runs.model_profile`), never the whole profile. */
  profile: ModelProfile;
  cost: RunCost;
  inputBytes: number | null;
  /** The Setpoint recommendation the run was configured from, if any. */
  recommendationId: string | null;
}
