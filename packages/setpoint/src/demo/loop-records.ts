import type { ApprovalState, ProjectSettings } from '@setpoint/api-contract';

/** The project settings a closed loop may set on every project it imports. */
export type ImportedProjectSettings = Partial<Pick<ProjectSettings, 'preference' | 'learningMissBudget'>>;

export interface ProjectRun {
  /** Setpoint's id of the run. */
  id: string;
  /** The Databricks run id. */
  runId: string;
  status: string | null;
  runtimeMinutes: number | null;
  costUsd: number | null;
  pipelineState: string;
  endedAt: number | null;
  /** The recommendation whose configuration the run used, when it used one. */
  recommendationId: string | null;
  /**
   * Whether the recommendation that configured the run was a learning run (`markLearningRuns`); null when
   * no recommendation configured it (the cold start).
   */
  learning: boolean | null;
}

/** A project's learning runs that waited for a person's approval, by what became of them. */
export type ApprovalCounts = Record<ApprovalState, number>;
