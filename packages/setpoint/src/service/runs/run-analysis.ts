import type { RunProfile } from '../../eventlog/run-profile.js';
import type { WorkspaceFacts } from '../workspaces/workspace-service.js';
import type { ClusterFacts, RunCost } from './run-records.js';

/** Event log bundle (a directory of one or more files) → RunProfile. */
export interface RunProfiler {
  profile(bundleDirectory: string): Promise<RunProfile>;
}

export interface CostInput {
  profile: RunProfile;
  cluster: ClusterFacts;
  /** The platform's cluster report as stored with the run (its coster reads it), or null. */
  clusterReport: unknown;
  workspace: WorkspaceFacts | null;
}

/** Prices a processed run; each platform brings its own (its billing and its cluster reports). */
export interface RunCoster {
  cost(input: CostInput): Promise<RunCost>;
}
