import type { ProjectPhase, ProjectSettings } from '@setpoint/api-contract';

export interface Project {
  id: string;
  name: string;
  description: string | null;
  workspaceId: string | null;
  jobId: string | null;
  clusterKey: string | null;
  appId: string | null;
  settings: ProjectSettings;
  phase: ProjectPhase;
  /** When `reset` last ran: earlier runs are history only and no longer teach the optimizer. */
  learningResetAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A project as an update left it. */
export interface UpdatedProject extends Project {
  /** The recommendation requested because the update changed a setting the one in force was decided on. */
  decidedAgain?: { recommendationId: string };
}

export interface ProjectInput {
  name: string;
  description?: string | null | undefined;
  workspaceId?: string | null | undefined;
  jobId?: string | null | undefined;
  clusterKey?: string | null | undefined;
  appId?: string | null | undefined;
  settings?: Partial<ProjectSettings> | undefined;
}

export interface ProjectListQuery {
  search?: string | undefined;
  workspaceId?: string | undefined;
  /** The caller's own key for the job (an Airflow DAG/task, a Gradient app id). */
  appId?: string | undefined;
  phase?: ProjectPhase | undefined;
  sort: 'name' | '-name' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at';
  limit: number;
  offset: number;
}
