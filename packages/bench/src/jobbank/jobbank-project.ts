import type { ProjectRun } from 'setpoint/demo/loop-records';

/** What a project's newest recommendation decided, in the words the API gives it. */
export interface LastDecision {
  action: 'keep' | 'change';
  change: string;
  /** P(runtime ≤ SLA) of the decision (null without an SLA). */
  probabilityMeetsSla: number | null;
  /** Still learning: the recommendation is a learning run. */
  learning: boolean;
  notes: string[];
}

/** One project of one cold start, as the Job Bank observed it through the service. */
export interface JobBankProject {
  platform: 'databricks' | 'emr';
  job: string;
  project: string;
  seed: number;
  slaMinutes: number | null;
  phase: string;
  runs: ProjectRun[];
  /** Predicted mid runtime (minutes) of each recommendation a run was made on. */
  predictedRuntimeMinutes: Map<string, number>;
  /** The recommendations that changed the cluster (decision `change`, not `keep`). */
  changeRecommendationIds: Set<string>;
  /** What the project's newest recommendation decided (absent: not observed). */
  lastDecision?: LastDecision | null;
}
